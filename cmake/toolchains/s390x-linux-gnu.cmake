# Cross build for s390x Linux with Debian's cross compilers and multiarch
# libraries, run under qemu-user: `make cross-check` (see the Makefile).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(CMAKE_C_COMPILER s390x-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER s390x-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE s390x-linux-gnu)
# ctest runs each test program through the emulator, which finds the
# target's C library where multiarch installed it (/lib/s390x-linux-gnu).
# Not with -L /usr/s390x-linux-gnu: that mixes in the cross compiler's copy
# of glibc, and threaded programs hang.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-s390x)
# Libraries and pkg-config files of the target architecture only (not a
# host library from /usr/local, should the search fall back to find_library).
set(CMAKE_SYSTEM_IGNORE_PREFIX_PATH /usr/local)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/s390x-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
