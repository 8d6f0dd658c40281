"""What ginsim needs that is not a rule: how the kernels compile, where their machine code is
kept, how a batch is spread over threads, how the packages load their names, and the checks
every input passes and every output line gets.

The lowest stage (infra -> core -> strategies -> engine -> api -> run -> analysis -> studies,
env, tools, interop -> cli): it imports no other stage and knows nothing of Gin Rummy.

* ``jit``: the compile profiles every numba function is decorated with (``CORE``, ``HOT``,
  ``MERGED``, ...), the one place numba's flags are spelled;
* ``words``: the work row's int64 words read as float64 or uint64 inside numba;
* ``cache``: where numba keeps ginsim's compiled kernels (one directory per source version);
* ``blocks``: blocks of work on a pool of threads (the kernels release the GIL);
* ``lazy``: the public names of ``simulator`` and ``strategies``, imported on first use;
* ``inputs``: what every input passes before it is used (bounded, non-blocking reads of
  regular files, JSON and TOML bounded before parsing, paths kept inside the working
  directory, sizes against memory and disk, API arguments checked as keys are);
* ``terminal``: what ginsim writes to a terminal (text from data escaped, any encoding).

Importing the package imports nothing; ``jit`` and ``words`` import numba.
"""
