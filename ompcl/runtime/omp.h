/* ompcl's omp.h: read by the libclang parse, and by the C compiler when the CPU versions use
   ompcl's pthreads runtime (runtime/rt_omp.c implements these). */
#ifndef OMPCL_PARSE_OMP_H
#define OMPCL_PARSE_OMP_H
typedef struct { unsigned char _x[64] __attribute__((__aligned__(8))); } omp_lock_t;
typedef struct { unsigned char _x[80] __attribute__((__aligned__(8))); } omp_nest_lock_t;
typedef enum omp_sched_t { omp_sched_static = 1, omp_sched_dynamic = 2, omp_sched_guided = 3, omp_sched_auto = 4 } omp_sched_t;
extern void omp_set_num_threads(int);
extern int omp_get_num_threads(void);
extern int omp_get_max_threads(void);
extern int omp_get_thread_num(void);
extern int omp_get_num_procs(void);
extern int omp_in_parallel(void);
extern void omp_set_dynamic(int);
extern int omp_get_dynamic(void);
extern void omp_set_nested(int);
extern int omp_get_nested(void);
extern void omp_init_lock(omp_lock_t *);
extern void omp_destroy_lock(omp_lock_t *);
extern void omp_set_lock(omp_lock_t *);
extern void omp_unset_lock(omp_lock_t *);
extern int omp_test_lock(omp_lock_t *);
extern void omp_init_nest_lock(omp_nest_lock_t *);
extern void omp_destroy_nest_lock(omp_nest_lock_t *);
extern void omp_set_nest_lock(omp_nest_lock_t *);
extern void omp_unset_nest_lock(omp_nest_lock_t *);
extern int omp_test_nest_lock(omp_nest_lock_t *);
extern double omp_get_wtime(void);
extern double omp_get_wtick(void);
extern void omp_set_schedule(omp_sched_t, int);
extern void omp_get_schedule(omp_sched_t *, int *);
extern int omp_get_thread_limit(void);
extern void omp_set_max_active_levels(int);
extern int omp_get_max_active_levels(void);
extern int omp_get_level(void);
extern int omp_get_ancestor_thread_num(int);
extern int omp_get_team_size(int);
extern int omp_get_active_level(void);
/* OpenMP 4.5 devices (runtime/rt_target.c) */
extern int omp_get_num_devices(void);
extern int omp_get_default_device(void);
extern void omp_set_default_device(int);
extern int omp_is_initial_device(void);
extern int omp_get_initial_device(void);
extern int omp_get_device_num(void);
extern int omp_get_num_teams(void);
extern int omp_get_team_num(void);
extern void *omp_target_alloc(__SIZE_TYPE__, int);
extern void omp_target_free(void *, int);
extern int omp_target_is_present(const void *, int);
extern int omp_target_memcpy(void *, const void *, __SIZE_TYPE__, __SIZE_TYPE__, __SIZE_TYPE__, int, int);
/* declared for the parse; not provided by ompcl's runtime (the C compiler's libgomp has them) */
extern int omp_target_memcpy_rect(void *, const void *, __SIZE_TYPE__, int, const __SIZE_TYPE__ *,
                                  const __SIZE_TYPE__ *, const __SIZE_TYPE__ *, const __SIZE_TYPE__ *,
                                  const __SIZE_TYPE__ *, int, int);
extern int omp_target_associate_ptr(const void *, const void *, __SIZE_TYPE__, __SIZE_TYPE__, int);
extern int omp_target_disassociate_ptr(const void *, int);
extern int omp_in_final(void);
extern int omp_get_cancellation(void);
extern int omp_get_max_task_priority(void);
/* OpenMP 5.0 and 5.1 routines and types, for the parse (a program calling any routine of this
   part is built with the C compiler's OpenMP: gcc's omp.h and libgomp then have them) */
typedef __UINTPTR_TYPE__ omp_uintptr_t;
typedef enum omp_memspace_handle_t {
    omp_default_mem_space, omp_large_cap_mem_space, omp_const_mem_space, omp_high_bw_mem_space,
    omp_low_lat_mem_space, __omp_memspace_handle_t_max = __UINTPTR_MAX__
} omp_memspace_handle_t;
typedef enum omp_allocator_handle_t {
    omp_null_allocator, omp_default_mem_alloc, omp_large_cap_mem_alloc, omp_const_mem_alloc,
    omp_high_bw_mem_alloc, omp_low_lat_mem_alloc, omp_cgroup_mem_alloc, omp_pteam_mem_alloc,
    omp_thread_mem_alloc, __omp_allocator_handle_t_max = __UINTPTR_MAX__
} omp_allocator_handle_t;
typedef enum omp_alloctrait_key_t {
    omp_atk_sync_hint = 1, omp_atk_alignment, omp_atk_access, omp_atk_pool_size, omp_atk_fallback,
    omp_atk_fb_data, omp_atk_pinned, omp_atk_partition
} omp_alloctrait_key_t;
typedef enum omp_alloctrait_value_t {
    omp_atv_default = -1, omp_atv_false = 0, omp_atv_true = 1, omp_atv_contended = 3,
    omp_atv_uncontended, omp_atv_serialized, omp_atv_sequential = omp_atv_serialized, omp_atv_private,
    omp_atv_all, omp_atv_thread, omp_atv_pteam, omp_atv_cgroup, omp_atv_default_mem_fb,
    omp_atv_null_fb, omp_atv_abort_fb, omp_atv_allocator_fb, omp_atv_environment, omp_atv_nearest,
    omp_atv_blocked, omp_atv_interleaved
} omp_alloctrait_value_t;
typedef struct omp_alloctrait_t { omp_alloctrait_key_t key; omp_uintptr_t value; } omp_alloctrait_t;
typedef enum omp_event_handle_t { __omp_event_handle_t_max = __UINTPTR_MAX__ } omp_event_handle_t;
typedef struct omp_depend_t { char __omp_depend[2 * sizeof(void *)]; } omp_depend_t;
typedef enum omp_pause_resource_t { omp_pause_soft = 1, omp_pause_hard = 2 } omp_pause_resource_t;
typedef enum omp_proc_bind_t {
    omp_proc_bind_false, omp_proc_bind_true, omp_proc_bind_master, omp_proc_bind_close,
    omp_proc_bind_spread, omp_proc_bind_primary = omp_proc_bind_master
} omp_proc_bind_t;
extern omp_allocator_handle_t omp_init_allocator(omp_memspace_handle_t, int, const omp_alloctrait_t[]);
extern void omp_destroy_allocator(omp_allocator_handle_t);
extern void omp_set_default_allocator(omp_allocator_handle_t);
extern omp_allocator_handle_t omp_get_default_allocator(void);
extern void *omp_alloc(__SIZE_TYPE__, omp_allocator_handle_t);
extern void *omp_aligned_alloc(__SIZE_TYPE__, __SIZE_TYPE__, omp_allocator_handle_t);
extern void *omp_calloc(__SIZE_TYPE__, __SIZE_TYPE__, omp_allocator_handle_t);
extern void *omp_aligned_calloc(__SIZE_TYPE__, __SIZE_TYPE__, __SIZE_TYPE__, omp_allocator_handle_t);
extern void *omp_realloc(void *, __SIZE_TYPE__, omp_allocator_handle_t, omp_allocator_handle_t);
extern void omp_free(void *, omp_allocator_handle_t);
extern void omp_fulfill_event(omp_event_handle_t);
extern int omp_pause_resource(omp_pause_resource_t, int);
extern int omp_pause_resource_all(omp_pause_resource_t);
extern int omp_get_supported_active_levels(void);
extern omp_proc_bind_t omp_get_proc_bind(void);
extern int omp_get_num_places(void);
extern int omp_get_place_num_procs(int);
extern void omp_get_place_proc_ids(int, int *);
extern int omp_get_place_num(void);
extern int omp_get_partition_num_places(void);
extern void omp_get_partition_place_nums(int *);
extern void omp_set_affinity_format(const char *);
extern __SIZE_TYPE__ omp_get_affinity_format(char *, __SIZE_TYPE__);
extern void omp_display_affinity(const char *);
extern __SIZE_TYPE__ omp_capture_affinity(char *, __SIZE_TYPE__, const char *);
extern void omp_display_env(int);
extern void omp_set_num_teams(int);
extern int omp_get_max_teams(void);
extern void omp_set_teams_thread_limit(int);
extern int omp_get_teams_thread_limit(void);
extern int omp_control_tool(int, int, void *);
extern void *omp_get_mapped_ptr(const void *, int);
extern int omp_target_is_accessible(const void *, __SIZE_TYPE__, int);
#endif
