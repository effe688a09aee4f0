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
#endif
