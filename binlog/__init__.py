"""binlog"""
