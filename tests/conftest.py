"""Shared fixtures. Real-peer fixtures (MariaDB servers, our daemons) live in tests/support/."""
