"""The contracts' schemas are made of pandera's polars classes imported from their own modules,
not through ``pandera.polars`` (see ``core.schema.import_pandera_polars``): the same classes, and
every fault reported in the same words as when ``pandera.polars`` was imported."""

import json
import subprocess
import sys

from neurips_abstracts.core.names import data_path
from neurips_abstracts.core.schema import TABLES, import_pandera_polars

from tests.helpers import ROOT

# In a new process: each table of a release whole, then with one fault made in it (a null, a
# repeated value, a value of no pattern, a negative or a string number, an extra, missing or
# reordered column), validated by the contracts; prints what each gave and whether
# pandera.polars was imported. With "polars" as its argument, pandera.polars is imported first.
_FAULTS = """
import json, sys
sys.path.insert(0, {src!r})
import polars as pl
import pyarrow.parquet as pq
from neurips_abstracts.core.schema import hidden
with hidden(("pandas",)):  # as the build command runs
    if sys.argv[1] == "polars":
        with hidden(("pandas", "hypothesis")):
            import pandera.polars
    from neurips_abstracts.build.contracts import ContractError, _validate
    found = {{}}
    for table, path in {paths!r}.items():
        df = pl.from_arrow(pq.read_table(path))
        faults = {{"whole": df, "extra": df.with_columns(pl.lit(1).alias("extra")), "missing": df.drop(df.columns[-1]),
                  "reordered": df.select(df.columns[::-1])}}
        for c, dtype in df.schema.items():
            faults[f"null {{c}}"] = df.with_columns(pl.lit(None, dtype=dtype).alias(c))
            faults[f"repeated {{c}}"] = df.with_columns(pl.col(c).first().alias(c))
            if dtype == pl.String:
                faults[f"no pattern {{c}}"] = df.with_columns(pl.lit("/x/ ").alias(c))
            else:
                faults[f"negative {{c}}"] = df.with_columns((pl.col(c).cast(pl.Float64) * 0 - 5).cast(dtype).alias(c))
                faults[f"string {{c}}"] = df.with_columns(pl.col(c).cast(pl.String))
        for name, frame in faults.items():
            try:
                _validate(table, frame)
                found[f"{{table}} {{name}}"] = "passed"
            except ContractError as exc:
                found[f"{{table}} {{name}}"] = str(exc)
print(json.dumps({{"found": found, "pandera.polars": "pandera.polars" in sys.modules}}))
"""


def test_the_contracts_use_the_classes_pandera_polars_exports():
    import pandera.polars

    assert import_pandera_polars() == (pandera.polars.DataFrameSchema, pandera.polars.Column, pandera.polars.Check)


def test_every_fault_is_reported_alike_without_pandera_polars(seeds_dist):
    code = _FAULTS.format(src=str(ROOT / "src"), paths={t: str(seeds_dist / data_path(t)) for t in TABLES})

    def run(first: str) -> dict:
        proc = subprocess.run([sys.executable, "-c", code, first], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout.strip().splitlines()[-1])

    alone, after_polars = run("classes"), run("polars")
    assert alone["pandera.polars"] is False and after_polars["pandera.polars"] is True
    assert alone["found"] == after_polars["found"]
    found = alone["found"]
    assert all(found[f"{t} whole"] == "passed" for t in TABLES)
    broken = [k for k, v in found.items() if v != "passed"]
    assert len(broken) > 60 and all(found[k].startswith(f"{k.split()[0]} breaks its schema:") for k in broken)
    assert "papers null paper_id" in broken and "occurrences repeated occurrence_id" in broken
