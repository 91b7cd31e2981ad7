# Cross build for 64-bit Windows with Debian's mingw-w64, run under Wine:
# scripts/windows-check.sh, which also builds utf8proc and cmocka for this
# target (Debian packages neither for mingw) and passes their paths.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
# Headers and libraries of the target only: never a host library that
# happens to carry a name the linker accepts (libutf8proc.a of the host).
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_LIBDIR} /usr/x86_64-w64-mingw32/lib/pkgconfig)
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
# ctest runs each test program through Wine (Debian's wine64 installs it
# outside PATH). The programs load the DLLs of utf8proc, cmocka and the
# mingw runtime, which WINEPATH must name (scripts/windows-check.sh sets it).
find_program(MARKUP_WINE NAMES wine64 wine PATHS /usr/lib/wine NO_CMAKE_FIND_ROOT_PATH)
if(MARKUP_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${MARKUP_WINE})
endif()
