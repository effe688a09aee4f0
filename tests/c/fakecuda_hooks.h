/* What the fake CUDA driver (tests/fakecuda/fakecuda.c) reports to the test programs through
 * its exported hooks fakecuda_stats() and fakecuda_last_launch(). One declaration for both
 * sides, so the layouts cannot drift apart. */
#ifndef CUDACL_FAKECUDA_HOOKS_H
#define CUDACL_FAKECUDA_HOOKS_H
#include <stddef.h>

/* Counters of driver calls, for checks like "this transfer was not repeated". */
struct fakecuda_stats {
    unsigned long long htod_calls, htod_bytes;
    unsigned long long dtoh_calls, dtoh_bytes;
    unsigned long long dtod_calls, dtod_bytes;
    unsigned long long peer_calls, peer_bytes;
    unsigned long long copy3d_calls;
    unsigned long long memset_calls;
    unsigned long long host_alloc_calls, host_register_calls;
    unsigned long long mem_alloc_calls, live_alloc_bytes;
    unsigned long long launches;
    unsigned long long arrays_created, arrays_destroyed, surfaces_created, surfaces_destroyed;
    unsigned long long array_copies; /* cuMemcpy3D calls with an array side */
    unsigned long long textures_created, textures_destroyed;
    unsigned long long graphs_instantiated, graph_launches; /* cuGraphInstantiate, cuGraphLaunch */
};

/* The last cuLaunchKernel: geometry, dynamic shared memory and the parameter buffer. */
struct fakecuda_launch {
    char name[256];
    unsigned grid[3], block[3], shared;
    size_t param_size;
    unsigned char params[4096];
    unsigned long long count;
};
#endif
