/* baked.c: to be written */
