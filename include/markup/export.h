/*
 * export.h - symbol visibility for libmarkup.
 *
 * The library is compiled with hidden visibility; MARKUP_API marks the
 * functions of the public API. Define MARKUP_STATIC when linking the static
 * library on Windows (elsewhere it changes nothing).
 */
#ifndef MARKUP_EXPORT_H
#define MARKUP_EXPORT_H

#if defined(_WIN32) && !defined(MARKUP_STATIC)
#  ifdef MARKUP_BUILDING
#    define MARKUP_API __declspec(dllexport)
#  else
#    define MARKUP_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) || defined(__clang__)
#  define MARKUP_API __attribute__((visibility("default")))
#else
#  define MARKUP_API
#endif

#endif /* MARKUP_EXPORT_H */
