# Cross build for 32-bit ARM (hard-float) Linux with Debian's cross compilers and multiarch
# libraries, run under qemu-user: `make cross-check` (see the Makefile).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-linux-gnueabihf-gcc)
set(CMAKE_CXX_COMPILER arm-linux-gnueabihf-g++)
set(CMAKE_LIBRARY_ARCHITECTURE arm-linux-gnueabihf)
# ctest runs each test program through the emulator, which finds the
# target's C library where multiarch installed it (/lib/arm-linux-gnueabihf).
# Not with -L /usr/arm-linux-gnueabihf: that mixes in the cross compiler's copy
# of glibc, and threaded programs hang.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-arm)
# Libraries and pkg-config files of the target architecture only (not a
# host library from /usr/local, should the search fall back to find_library).
set(CMAKE_SYSTEM_IGNORE_PREFIX_PATH /usr/local)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/arm-linux-gnueabihf/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
