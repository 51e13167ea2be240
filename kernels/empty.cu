// Does nothing: launching it measures the pure cost of a launch.
extern "C" __global__ void empty() {}
