"""python -m markup.jinja.lint FOLDER...: each {{ }} of the Jinja2 templates
under the folders that stands where Jinja2's escaping does not protect the
page. From Python: markup.jinja.lint(env)."""

import sys
import types

from ._lint import lint, main


class _CallableModule(types.ModuleType):
    # `import markup.jinja.lint` puts this module where the package had its
    # lint() function; calling it still lints.
    def __call__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return lint(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

if __name__ == "__main__":
    sys.exit(main())
