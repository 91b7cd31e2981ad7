/* node.c: to be written */
