/* escape.c: to be written */
