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
 * a thread-local variable; where they cannot be had, the guard passes.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#  define _GNU_SOURCE /* pthread_getattr_np */
#endif

#include "state.h"

#include <stdint.h>

#if defined(_WIN32)
#  include <windows.h>
#elif defined(__linux__) || defined(__APPLE__) || defined(__FreeBSD__)
#  include <pthread.h>
#  if defined(__FreeBSD__)
#    include <pthread_np.h>
#  endif
#  define PM_STACK_PTHREAD 1
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

/* The lowest address this thread may grow its stack to, plus the margin;
   0 before the first look, 1 when the bounds are unknown (never reached). */
static PM_THREAD_LOCAL uintptr_t stack_floor;

/* The thread's stack as [low, low + size), or 0 when unknown. */
static uintptr_t thread_stack_low(uintptr_t *size) {
#if defined(_WIN32)
    ULONG_PTR low = 0, high = 0;
    GetCurrentThreadStackLimits(&low, &high);
    *size = (uintptr_t)(high - low);
    return (uintptr_t)low;
#elif defined(__APPLE__)
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
#  else
    int rc = pthread_getattr_np(pthread_self(), &attr);
#  endif
    if (rc != 0) return 0;
    rc = pthread_attr_getstack(&attr, &addr, &len);
    pthread_attr_destroy(&attr);
    if (rc != 0) return 0;
    *size = (uintptr_t)len;
    return (uintptr_t)addr;
#else
    *size = 0;
    return 0;
#endif
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static uintptr_t find_floor(void) {
    uintptr_t size = 0;
    uintptr_t low = thread_stack_low(&size);
    uintptr_t margin = size / 4 < PM_STACK_MARGIN ? size / 4 : PM_STACK_MARGIN;
    stack_floor = low == 0 || size == 0 ? 1 : low + margin;
    return stack_floor;
}

int pm_stack_check(const char *where) {
#if defined(__GNUC__) || defined(__clang__)
    /* The frame itself: a sanitizer may keep locals on a heap "fake stack". */
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
#else
    char local;
    uintptr_t here = (uintptr_t)&local;
#endif
    uintptr_t floor = stack_floor;
    if (floor == 0) floor = find_floor();
    if (here > floor) return 0;
    PyErr_Format(PyExc_RecursionError,
                 "maximum recursion depth exceeded %s (the thread's C stack is nearly used "
                 "up; look for an __html__ method or @baked function that renders itself)",
                 where);
    return -1;
}
