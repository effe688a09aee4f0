//! ompcl: OpenMP C -> OpenCL translator (helper fills this in).
