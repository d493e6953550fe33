"""Read the kept units with libcst and run the detector on them.

Imported only when the prefilter keeps something: a check of files that call no select never loads
libcst.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from nanlint.analysis.detector import Detector
from nanlint.analysis.sites import Site, SiteKind
from nanlint.analysis.tree import parse_unit
from nanlint.catalog.lookup import Catalog
from nanlint.prefilter import Prefiltered, whole_file
from nanlint.prefilter.textscan import scan_imports


class AnalysisError(Exception):
    """A file the analysis cannot read; the message is one line for the user."""


@dataclass
class Analysis:
    detector: Detector
    sites: list[Site]


def analyse(source: str, prefiltered: Prefiltered, catalog: Catalog, kinds: frozenset[SiteKind]) -> Analysis:
    try:
        trees = [parse_unit(source, unit) for unit in prefiltered.units]
        detector = Detector(
            source,
            trees,
            catalog,
            prefiltered.imports.frameworks,
            prefiltered.defined,
            prefiltered.never_differentiated,
            prefiltered.jvp_rules,
            prefiltered.imports.aliases,
            {name: helper.text for name, helper in prefiltered.helpers.items()},
            prefiltered.imports.own_modules,
            prefiltered.imports.namespace_uses,
        )
        return Analysis(detector, detector.sites(kinds))
    except cst.ParserSyntaxError as error:
        raise AnalysisError(f"libcst cannot read this file: {str(error).splitlines()[0]}") from None


def analyse_whole_file(source: str, catalog: Catalog, before: Optional[Detector] = None) -> Detector:
    """The detector over the whole of a source (a fixed file, for the verification harness). `before`:
    the detector of the text before its fixes, whose reading of the imports the fixed text shares
    (a fix adds no import): a module of the tree that stands for an array module, a backend object."""
    imports = scan_imports(source)
    if before is not None:
        imports = dataclasses.replace(
            imports,
            frameworks=imports.frameworks | before.imported_frameworks,
            aliases=before.index.aliases,
            own_modules=before.index.own_modules,
        )
    return analyse(source, whole_file(source, imports), catalog, frozenset()).detector
