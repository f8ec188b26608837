"""semisync"""
