"""slave"""
