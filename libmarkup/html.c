/* html.c: to be written */
