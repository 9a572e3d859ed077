"""Sphinx configuration of the course's website (``make site``, ``scripts/build_site.py``).

The sources Sphinx reads are a copy of ``notebooks/`` and ``docs/`` that
``scripts/build_site.py`` prepares in ``build/site-work/src``; this folder holds only
the configuration, the site's own stylesheet and the script that moves the live figures.
Nothing here reaches the network: notebooks are shown with their committed outputs (never
executed; a live view's pictures are drawn by the build script), MathJax 3 is served from
the site itself, and the theme's assets ship inside its Python package.
"""

import os

# scripts/build_site.py builds the site twice: the English edition, then the Chinese one
# (PE_SITE_LANGUAGE=zh, its prepared sources and pictures in PE_SITE_WORK).
EDITION = os.environ.get("PE_SITE_LANGUAGE", "en")
WORK = os.environ.get("PE_SITE_WORK", "../build/site-work")

project = "Positional encoding, interactively" if EDITION == "en" else "位置编码，动手学"
author = "the course's authors"
copyright = "the course's authors, MIT licence"
# zh_CN: Sphinx's Chinese search, which cuts Chinese text into words with jieba.
language = "en" if EDITION == "en" else "zh_CN"
if EDITION == "zh" and os.environ.get("PE_SITE_JIEBA_DICT"):
    # the course's terms as whole words for jieba (scripts/build_site.py writes the file)
    html_search_options = {"dict": os.environ["PE_SITE_JIEBA_DICT"]}

extensions = ["myst_nb", "sphinx.ext.mathjax"]
root_doc = "notebooks/00_index"
exclude_patterns = ["**/.ipynb_checkpoints"]

# The committed outputs are the ones strict nbval checks: show them as they are.
nb_execution_mode = "off"
nb_merge_streams = True
# $...$ and $$...$$ as in JupyterLab's markdown; \begin{align} blocks as in amsmath.
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_dmath_double_inline = True
# Heading links are rewritten to explicit targets by the build script; these slugs also
# let a plain `page.md#heading` link resolve.
myst_heading_anchors = 6
# Some solution notebooks go from a level-1 title straight to level-3 exercise headings;
# that renders fine, so it is not a build failure (the build runs with -W otherwise).
suppress_warnings = ["myst.header"]

# MathJax 3 (TeX in, CommonHTML out), copied into _static/mathjax by the build script from
# the django-static-mathjax package; its fonts load from beside the script. MathJax 2
# (jupyter-server-mathjax) typeset the cheat sheet's 333 formulas 2.5x slower here.
mathjax_path = "mathjax/tex-chtml.js"
html_favicon = "static/favicon.svg"

html_theme = "sphinx_book_theme"
html_title = project
# static/ holds the stylesheet, the live figures' script and the icon; build/site-work/static
# the MathJax and the live figures' pictures, copied there at build time.
html_static_path = ["static", f"{WORK}/static"]
html_css_files = ["course.css"]
# The live figures' controls (scripts/build_site.py writes them, with their pictures in
# _static/live/): a small script of the course's own, no library, no network.
html_js_files = [("live_figures.js", {"defer": "defer"})]
html_last_updated_fmt = None
html_show_sourcelink = False
html_copy_source = False
# The theme's light/dark switch needs a declared starting mode.
html_context = {"default_mode": "light"}
html_theme_options = {
    "home_page_in_toc": True,
    "show_navbar_depth": 1,
    "use_download_button": False,
    "use_fullscreen_button": False,
    "show_toc_level": 2,
    "navigation_with_keys": False,
    # One search field, in the sidebar (the header would repeat it).
    "navbar_persistent": [],
}
