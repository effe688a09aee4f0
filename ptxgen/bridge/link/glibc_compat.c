/* glibc compatibility for the aarch64 (Jetson) build: linked only when PTXGEN_STATIC_RUNTIME=1
 * (scripts/build-aarch64.sh), which links against glibc 2.31 (JetPack 5 / Ubuntu 20.04) while
 * clang/LLVM's static libraries and libstdc++.a were compiled against Debian 12's glibc 2.36
 * headers. The few functions those objects reference that glibc 2.31 does not export are
 * defined here, hidden, on top of what 2.31 has. Everything else binds to the old symbol
 * versions of the glibc 2.31 libraries the link sees (scripts/check-glibc.sh checks the result).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define HIDDEN __attribute__((visibility("hidden")))

/* stat and friends became real functions in glibc 2.33; before, the headers inlined calls to
 * __xstat & co. with a version argument (0 on aarch64, whose struct stat is the kernel's). */
extern int __xstat(int ver, const char *path, struct stat *buf);
extern int __lxstat(int ver, const char *path, struct stat *buf);
extern int __fxstat(int ver, int fd, struct stat *buf);
extern int __fxstatat(int ver, int dirfd, const char *path, struct stat *buf, int flags);
#define STAT_VER 0

HIDDEN int stat(const char *path, struct stat *buf) { return __xstat(STAT_VER, path, buf); }
HIDDEN int lstat(const char *path, struct stat *buf) { return __lxstat(STAT_VER, path, buf); }
HIDDEN int fstat(int fd, struct stat *buf) { return __fxstat(STAT_VER, fd, buf); }
HIDDEN int fstatat(int dirfd, const char *path, struct stat *buf, int flags) {
  return __fxstatat(STAT_VER, dirfd, path, buf, flags);
}
/* On aarch64 struct stat64 is struct stat. */
HIDDEN int stat64(const char *path, struct stat64 *buf) { return __xstat(STAT_VER, path, (struct stat *)buf); }
HIDDEN int lstat64(const char *path, struct stat64 *buf) { return __lxstat(STAT_VER, path, (struct stat *)buf); }
HIDDEN int fstat64(int fd, struct stat64 *buf) { return __fxstat(STAT_VER, fd, (struct stat *)buf); }
HIDDEN int fstatat64(int dirfd, const char *path, struct stat64 *buf, int flags) {
  return __fxstatat(STAT_VER, dirfd, path, (struct stat *)buf, flags);
}

/* mallinfo2 (2.33): LLVM's Process::GetMallocUsage. The int fields of mallinfo are enough. */
HIDDEN struct mallinfo2 mallinfo2(void) {
  struct mallinfo m = mallinfo();
  struct mallinfo2 r;
  r.arena = (size_t)(unsigned)m.arena;
  r.ordblks = (size_t)(unsigned)m.ordblks;
  r.smblks = (size_t)(unsigned)m.smblks;
  r.hblks = (size_t)(unsigned)m.hblks;
  r.hblkhd = (size_t)(unsigned)m.hblkhd;
  r.usmblks = (size_t)(unsigned)m.usmblks;
  r.fsmblks = (size_t)(unsigned)m.fsmblks;
  r.uordblks = (size_t)(unsigned)m.uordblks;
  r.fordblks = (size_t)(unsigned)m.fordblks;
  r.keepcost = (size_t)(unsigned)m.keepcost;
  return r;
}

/* arc4random (2.36): libstdc++'s random_device and LLVM. getrandom (2.25) blocks only until
 * the kernel's pool is initialised, as arc4random does. */
HIDDEN void arc4random_buf(void *buf, size_t n) {
  unsigned char *p = buf;
  while (n > 0) {
    ssize_t r = getrandom(p, n, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      /* No getrandom syscall (kernel < 3.17): not a Jetson kernel; fall back to urandom. */
      int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
      if (fd < 0) return;
      while (n > 0) {
        ssize_t k = read(fd, p, n);
        if (k <= 0) break;
        p += k;
        n -= (size_t)k;
      }
      close(fd);
      return;
    }
    p += r;
    n -= (size_t)r;
  }
}
HIDDEN uint32_t arc4random(void) {
  uint32_t v = 0;
  arc4random_buf(&v, sizeof v);
  return v;
}
HIDDEN uint32_t arc4random_uniform(uint32_t bound) {
  if (bound < 2) return 0;
  uint32_t min = -bound % bound, r;
  do r = arc4random();
  while (r < min);
  return r % bound;
}

/* __libc_single_threaded (2.32): libstdc++'s inline code skips atomic reference counting while
 * it is nonzero. 0 ("maybe threaded") is always correct. */
HIDDEN char __libc_single_threaded = 0;
