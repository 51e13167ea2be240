"""studies.launch_modes"""
