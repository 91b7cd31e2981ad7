/* version.c: to be written */
