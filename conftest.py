"""Tests close every matplotlib figure they open; a notebook stops at its first error."""

import matplotlib.pyplot as plt
import pytest


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


#: Notebook (its test node id) -> the cell whose code raised: the cells after it are skipped.
_STOPPED_AT: dict[str, str] = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A notebook cell whose code raises stops its notebook, as Run All in JupyterLab does.

    Without this, nbval runs every later cell too, and each fails with a NameError of what the
    failed cell never defined (a damaged results file gave 11 red cells): one error, one red cell.
    A cell whose outputs merely differ stops nothing.
    """
    outcome = yield
    error = call.excinfo.value if call.excinfo is not None else None
    if type(error).__name__ == "NbCellError" and outcome.get_result().failed:
        if str(error) == "Cell execution caused an exception":
            _STOPPED_AT.setdefault(item.parent.nodeid, item.name)


def pytest_runtest_setup(item):
    stopped = _STOPPED_AT.get(getattr(item.parent, "nodeid", ""))
    if stopped is not None and type(item).__name__ == "IPyNbCell":
        pytest.skip(f"{stopped} raised an exception: the notebook stops there, as Run All does")


def _kernel_starts_again_if_it_dies_starting() -> None:
    """A notebook's kernel that dies before it answers its first message is started again (at
    most twice more), before any cell runs: with 58 notebooks in two workers, a start once lost
    that race here ("Kernel died before replying to kernel_info", no code run yet). A cell's
    failure is never retried."""
    try:
        import nbval.kernel
    except ImportError:  # nbval is a test extra
        return
    start = nbval.kernel.start_new_kernel
    if getattr(start, "retries", False):
        return

    def start_new_kernel(*args, **kwargs):
        for attempt in range(3):
            try:
                return start(*args, **kwargs)
            except RuntimeError as error:
                if "died before replying" not in str(error) or attempt == 2:
                    raise

    start_new_kernel.retries = True
    nbval.kernel.start_new_kernel = start_new_kernel


_kernel_starts_again_if_it_dies_starting()
