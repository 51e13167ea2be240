"""studies.floor"""
