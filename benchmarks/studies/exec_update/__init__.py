"""studies.exec_update"""
