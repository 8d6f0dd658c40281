"""What the kernels need that is not a rule: how they compile, where their machine code is
kept, how a batch is spread over threads, and how the packages load their names.

The lowest stage (infra -> core -> strategies -> engine -> api -> run -> analysis -> studies,
env, tools, interop -> cli): it imports no other stage and knows nothing of Gin Rummy.

* ``jit``: the compile profiles every numba function is decorated with (``CORE``, ``HOT``,
  ``MERGED``, ...), the one place numba's flags are spelled;
* ``cache``: where numba keeps ginsim's compiled kernels (one directory per source version);
* ``blocks``: blocks of work on a pool of threads (the kernels release the GIL);
* ``lazy``: the public names of ``simulator`` and ``strategies``, imported on first use.

Importing the package imports nothing; ``jit`` alone imports numba.
"""
