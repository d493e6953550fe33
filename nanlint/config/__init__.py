"""Settings for one run: defaults, pyproject's [tool.nanlint], the command line, and the files to check."""
