"""One BLAS thread for the course's kernels, unless the user chose otherwise.

The course multiplies small matrices (a few dozen rows), where BLAS threads cost more than
they save. On a 2-core machine that was also busy (as a laptop running the browser is),
lesson 09's bench of 14 small models took 27.4 s with OpenBLAS's default threads and 7.5 s
with one. ``make lab`` and ``make test`` export ``OPENBLAS_NUM_THREADS=1`` already; this
covers a kernel started any other way (Binder, a conda environment, ``jupyter lab``). It
takes effect only when :mod:`pe_helpers` is imported before numpy, as every notebook's
set-up lines do; a value already in the environment is kept.
"""

import os

#: The thread-count variables of the BLAS libraries numpy is built with (OpenBLAS on PyPI
#: and conda-forge, MKL on Anaconda's channel).
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

for _variable in BLAS_THREAD_VARIABLES:
    os.environ.setdefault(_variable, "1")
