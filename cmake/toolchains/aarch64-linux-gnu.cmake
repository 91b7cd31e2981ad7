# Cross build for aarch64 Linux with Debian's cross compilers and multiarch
# libraries, run under qemu-user: `make cross-check` (see the Makefile).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# ctest runs each test program through the emulator, which finds the
# target's C library where multiarch installed it (/lib/aarch64-linux-gnu).
# Not with -L /usr/aarch64-linux-gnu: that mixes in the cross compiler's copy
# of glibc, and threaded programs hang.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
# Libraries and pkg-config files of the target architecture only (not a
# host library from /usr/local, should the search fall back to find_library).
set(CMAKE_SYSTEM_IGNORE_PREFIX_PATH /usr/local)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
