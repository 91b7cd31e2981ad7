/* utf8.c: to be written */
