/*
 * version.c - runtime version and status names.
 */
#include "markup/binding.h"

const char *markup_version(void) { return MARKUP_VERSION_STRING; }

unsigned long markup_version_number(void) { return MARKUP_VERSION_NUMBER; }

const char *markup_status_message(markup_status status) {
    switch (status) {
    case MARKUP_OK: return "ok";
    case MARKUP_ERR_NOMEM: return "out of memory";
    case MARKUP_ERR_INVALID_ARG: return "invalid argument";
    case MARKUP_ERR_TOO_LARGE: return "size too large";
    case MARKUP_ERR_INVALID_UTF8: return "invalid UTF-8";
    case MARKUP_ERR_INVALID_TAG: return "invalid tag name";
    case MARKUP_ERR_INVALID_ATTR_NAME: return "invalid attribute name";
    case MARKUP_ERR_VOID_CHILD: return "void element cannot have children";
    case MARKUP_ERR_RAW_TEXT: return "text would end a raw-text element early";
    case MARKUP_ERR_FROZEN: return "node is frozen (already adopted by a parent)";
    case MARKUP_ERR_TOO_DEEP: return "tree nested too deeply";
    case MARKUP_ERR_SLOT_COUNT: return "wrong number of slot values";
    case MARKUP_ERR_SLOT_VALUE: return "slot value not allowed in this slot";
    case MARKUP_ERR_CONTEXT: return "the HTML parser would read this otherwise where it stands";
    case MARKUP_ERR_IO: return "writing the output failed";
    }
    return "unknown status";
}

const char *markup_status_name(markup_status status) {
    switch (status) {
    case MARKUP_OK: return "MARKUP_OK";
    case MARKUP_ERR_NOMEM: return "MARKUP_ERR_NOMEM";
    case MARKUP_ERR_INVALID_ARG: return "MARKUP_ERR_INVALID_ARG";
    case MARKUP_ERR_TOO_LARGE: return "MARKUP_ERR_TOO_LARGE";
    case MARKUP_ERR_INVALID_UTF8: return "MARKUP_ERR_INVALID_UTF8";
    case MARKUP_ERR_INVALID_TAG: return "MARKUP_ERR_INVALID_TAG";
    case MARKUP_ERR_INVALID_ATTR_NAME: return "MARKUP_ERR_INVALID_ATTR_NAME";
    case MARKUP_ERR_VOID_CHILD: return "MARKUP_ERR_VOID_CHILD";
    case MARKUP_ERR_RAW_TEXT: return "MARKUP_ERR_RAW_TEXT";
    case MARKUP_ERR_FROZEN: return "MARKUP_ERR_FROZEN";
    case MARKUP_ERR_TOO_DEEP: return "MARKUP_ERR_TOO_DEEP";
    case MARKUP_ERR_SLOT_COUNT: return "MARKUP_ERR_SLOT_COUNT";
    case MARKUP_ERR_SLOT_VALUE: return "MARKUP_ERR_SLOT_VALUE";
    case MARKUP_ERR_CONTEXT: return "MARKUP_ERR_CONTEXT";
    case MARKUP_ERR_IO: return "MARKUP_ERR_IO";
    }
    return "MARKUP_ERR_UNKNOWN";
}
