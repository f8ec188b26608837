# The two commands of the README's Quick start: `make demo` and `make test`.
# Both install what they need on a fresh Debian 12 machine (run as root).
PYTHON ?= python3
# gcc + libc6-dev: pip builds the C parts (setup.py) with them; zlib1g-dev: the slave's receiver
# thread (slave/_receiver.c) checks CRC32 footers with zlib; libsqlite3-dev: SQLite's header for the
# engine files' VFS shim (engine/_walframes.c); php-cli + php-mysql: PHP's mysqlnd
# (tests/integration/test_php_mysqlnd_mariadb.py); percona-toolkit brings Perl's DBD::mysql;
# golang-go + golang-github-go-sql-driver-mysql-dev: Go's driver, built offline from the package's
# sources (tests/integration/test_go_sql_driver_mariadb.py); ruby-mysql2: Ruby's mysql2 gem
# (tests/integration/test_ruby_mysql2_mariadb.py)
APT_PACKAGES := mariadb-server mariadb-client sysbench docker-compose prometheus prometheus-mysqld-exporter openjdk-17-jre-headless gcc libc6-dev zlib1g-dev libsqlite3-dev libmariadb-java percona-toolkit openjdk-17-jdk-headless strace php-cli php-mysql golang-go golang-github-go-sql-driver-mysql-dev ruby-mysql2 mydumper libmariadb-dev pkg-config
PYTEST_ARGS ?=

.PHONY: test demo deps apt-deps pip-deps node-deps lint

apt-deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

pip-deps:
	$(PYTHON) -m pip install -q -e '.[test]'

# Node clients the tests run (tests/support/node/package.json), with the machine's npm; without
# npm or the registry the tests that need them say so and are skipped
node-deps:
	@if command -v npm >/dev/null 2>&1; then \
	  npm install --prefix tests/support/node --no-audit --no-fund --silent || echo "npm install failed: the Node client tests will be skipped"; \
	else echo "no npm: the Node client tests will be skipped"; fi

deps: apt-deps pip-deps node-deps

test: deps
	$(PYTHON) -m pytest $(PYTEST_ARGS)

lint:
	$(PYTHON) -m ruff check .

# A local master with two semi-sync slaves on loopback (Ctrl-C stops it); data in ./.semisync.
# DEMO_ARGS passes more options to `semisync up` (e.g. --port, --datadir).
DEMO_ARGS ?=
demo:
	@dpkg -s mariadb-client >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mariadb-client; }
	$(PYTHON) -m pip install -q -e .
	semisync up --slaves 2 $(DEMO_ARGS)
