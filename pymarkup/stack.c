/*
 * stack.c - the C stack guard.
 *
 * __html__ methods and @baked calls can nest renders without end (an
 * __html__ that calls a baked function whose slot holds another such
 * object). Each level costs a few KiB of C stack in markup and in the
 * interpreter, which the recursion limit does not measure: a thread with a
 * small stack, or a raised limit, would overflow it and crash. So the
 * entry points of those levels ask how much of the thread's stack is left
 * and raise RecursionError while enough remains to unwind.
 *
 * The bounds come from the thread library once per thread and are kept in
 * thread-local variables; where they cannot be had (or the code runs on a
 * stack of its own, such as a fiber's), the guard passes.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#  define _GNU_SOURCE /* pthread_getattr_np */
#endif

#include "state.h"

#include <stdint.h>

/* Where the thread library reports the whole stack of every thread. Not
   musl: for the main thread it reports only the part mapped so far, which
   would put the floor a few hundred KiB below the first render. Not on
   stacks that grow up (hppa). Elsewhere the guard passes. */
#if defined(__hppa__)
#elif defined(_WIN32)
#  include <windows.h>
#  define PM_STACK_WINDOWS 1
#elif defined(__APPLE__)
#  include <pthread.h>
#  define PM_STACK_APPLE 1
#elif defined(__GLIBC__) || defined(__FreeBSD__)
#  include <pthread.h>
#  if defined(__FreeBSD__)
#    include <pthread_np.h>
#  endif
#  define PM_STACK_PTHREAD 1
#endif

/* glibc 2.32 and 2.34 gave these two calls new symbol versions when it
   moved libpthread into libc, and a build links the newest, which older
   systems lack. The wheels are built on a new glibc and must load on old
   ones (manylinux): bind the versions each CPU's glibc has had from the
   start (its first GLIBC_ version), which every glibc keeps exporting. */
#if defined(__GLIBC__) && defined(__x86_64__)
#  define PM_GLIBC_FIRST "GLIBC_2.2.5"
#elif defined(__GLIBC__) && defined(__aarch64__)
#  define PM_GLIBC_FIRST "GLIBC_2.17"
#endif
#ifdef PM_GLIBC_FIRST
__asm__(".symver pthread_getattr_np,pthread_getattr_np@" PM_GLIBC_FIRST);
__asm__(".symver pthread_attr_getstack,pthread_attr_getstack@" PM_GLIBC_FIRST);
#endif

#if defined(_MSC_VER)
#  define PM_THREAD_LOCAL __declspec(thread)
#else
#  define PM_THREAD_LOCAL _Thread_local
#endif

/* What must stay free when a level starts: the level itself, the
   interpreter's frames for one __html__ call and the exception's unwinding
   all fit with room to spare. A quarter of the stack at most, for very
   small stacks. */
#define PM_STACK_MARGIN ((uintptr_t)128 * 1024)

/* The bottom of this thread's stack: a frame in [stack_low, stack_floor]
   is too close to its end. Both 0 while unknown (then nothing is in the
   range). A frame below or above the thread's stack runs on another one (a
   fiber's, a coroutine library's), which the guard cannot measure and lets
   pass. */
static PM_THREAD_LOCAL uintptr_t stack_low, stack_floor;
static PM_THREAD_LOCAL int stack_known;

/* The thread's stack as [low, low + size); 0 when unknown. */
static uintptr_t thread_stack_low(uintptr_t *size) {
    *size = 0;
#if defined(PM_STACK_WINDOWS)
    ULONG_PTR low = 0, high = 0;
    GetCurrentThreadStackLimits(&low, &high);
    *size = (uintptr_t)(high - low);
    return (uintptr_t)low;
#elif defined(PM_STACK_APPLE)
    pthread_t self = pthread_self();
    uintptr_t top = (uintptr_t)pthread_get_stackaddr_np(self);
    *size = (uintptr_t)pthread_get_stacksize_np(self);
    return top - *size;
#elif defined(PM_STACK_PTHREAD)
    pthread_attr_t attr;
    void *addr = NULL;
    size_t len = 0;
#  if defined(__FreeBSD__)
    if (pthread_attr_init(&attr) != 0) return 0;
    int rc = pthread_attr_get_np(pthread_self(), &attr);
    if (rc != 0) {
        pthread_attr_destroy(&attr);
        return 0;
    }
#  else
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
#  endif
    int rc2 = pthread_attr_getstack(&attr, &addr, &len);
    pthread_attr_destroy(&attr);
    if (rc2 != 0) return 0;
    *size = (uintptr_t)len;
    return (uintptr_t)addr;
#else
    return 0;
#endif
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static void
find_bounds(void) {
    uintptr_t size = 0;
    uintptr_t low = thread_stack_low(&size);
    stack_known = 1;
    if (low == 0 || size == 0) return;
    uintptr_t margin = size / 4 < PM_STACK_MARGIN ? size / 4 : PM_STACK_MARGIN;
    stack_low = low;
    stack_floor = low + margin;
}

int pm_stack_check(const char *where) {
#if defined(__GNUC__) || defined(__clang__)
    /* The frame itself: a sanitizer may keep locals on a heap "fake stack". */
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
#else
    char local;
    uintptr_t here = (uintptr_t)&local;
#endif
    if (!stack_known) find_bounds();
    if (here < stack_low || here > stack_floor) return 0;
    PyErr_Format(PyExc_RecursionError,
                 "maximum recursion depth exceeded %s (the thread's C stack is nearly used "
                 "up; look for an __html__ method or @baked function that renders itself)",
                 where);
    return -1;
}
