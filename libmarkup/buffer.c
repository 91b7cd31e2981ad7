/* buffer.c: to be written */
