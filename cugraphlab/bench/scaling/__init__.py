"""``cugraphlab scaling``, what a graph costs as it grows: plan (the points and costs), point (one point measured),
sweep (every point, the held rounds, the record), analysis (fits, break-even, unrolling), model (graph launch
against NVIDIA's model), paired (Python against C)."""
