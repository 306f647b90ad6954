"""croissant.json: the release as Croissant 1.1 metadata, with the Responsible AI (RAI) fields."""

from __future__ import annotations

from ..core.names import table_folder
from ..core.schema import TABLES, table_schema
from . import texts
from .contents import Release

_CROISSANT_TYPES = {"string": "sc:Text", "integer": "sc:Integer", "number": "sc:Float", "boolean": "sc:Boolean"}


def _source_kind(r: Release, table: str) -> str:
    return "fileObject" if len(r.data[table].shards) == 1 else "fileSet"


def _distribution(r: Release, table: str) -> dict:
    """A table's Parquet: its one file, or the set of its shards (read as one, in name order)."""
    data = r.data[table]
    if len(data.shards) == 1:
        return {
            "@type": "cr:FileObject",
            "@id": f"{table}-parquet",
            "name": f"{table}-parquet",
            "description": f"Parquet file of the {table} table.",
            "contentUrl": data.shards[0].path,
            "contentSize": f"{data.shards[0].size} B",
            "encodingFormat": "application/x-parquet",
            "sha256": data.shards[0].sha256,
        }
    return {
        "@type": "cr:FileSet",
        "@id": f"{table}-parquet",
        "name": f"{table}-parquet",
        "description": f"Parquet files of the {table} table, {len(data.shards)} shards (SHA256SUMS lists their digests).",
        "encodingFormat": "application/x-parquet",
        "includes": f"{table_folder(table)}/train-*-of-{len(data.shards):05d}.parquet",
    }


def croissant(r: Release) -> dict:
    context = {
        "@language": "en",
        "@vocab": "https://schema.org/",
        "citeAs": "cr:citeAs",
        "column": "cr:column",
        "conformsTo": "dct:conformsTo",
        "cr": "http://mlcommons.org/croissant/",
        "rai": "http://mlcommons.org/croissant/RAI/",
        "data": {"@id": "cr:data", "@type": "@json"},
        "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
        "dct": "http://purl.org/dc/terms/",
        "equivalentProperty": "cr:equivalentProperty",
        "examples": {"@id": "cr:examples", "@type": "@json"},
        "extract": "cr:extract",
        "field": "cr:field",
        "fileProperty": "cr:fileProperty",
        "fileObject": "cr:fileObject",
        "fileSet": "cr:fileSet",
        "format": "cr:format",
        "includes": "cr:includes",
        "isLiveDataset": "cr:isLiveDataset",
        "jsonPath": "cr:jsonPath",
        "key": "cr:key",
        "md5": "cr:md5",
        "parentField": "cr:parentField",
        "path": "cr:path",
        "recordSet": "cr:recordSet",
        "references": "cr:references",
        "regex": "cr:regex",
        "repeated": "cr:repeated",
        "replace": "cr:replace",
        "samplingRate": "cr:samplingRate",
        "sc": "https://schema.org/",
        "separator": "cr:separator",
        "source": "cr:source",
        "subField": "cr:subField",
        "transform": "cr:transform",
    }
    record_sets = []
    for table in TABLES:
        spec = table_schema(table)
        fk = {
            a: f"{k['reference']['resource']}/{b}"
            for k in spec.get("foreignKeys", [])
            for a, b in zip(k["fields"], k["reference"]["fields"])
        }
        fields = []
        for f in spec["fields"]:
            field = {
                "@type": "cr:Field",
                "@id": f"{table}/{f['name']}",
                "name": f"{table}/{f['name']}",
                "description": f["description"],
                "dataType": _CROISSANT_TYPES[f["type"]],
                "source": {_source_kind(r, table): {"@id": f"{table}-parquet"}, "extract": {"column": f["name"]}},
            }
            if f["name"] in fk:
                field["references"] = {"field": {"@id": fk[f["name"]]}}
            fields.append(field)
        record_sets.append(
            {
                "@type": "cr:RecordSet",
                "@id": table,
                "name": table,
                "description": spec["description"],
                "key": [{"@id": f"{table}/{k}"} for k in spec["primaryKey"]],
                "field": fields,
            }
        )
    return {
        "@context": context,
        "@type": "sc:Dataset",
        "conformsTo": "http://mlcommons.org/croissant/1.1",
        "name": "neurips-2026-abstracts",
        "description": texts.SUMMARY,
        "version": r.version,
        "license": [
            {"@type": "sc:CreativeWork", "name": texts.AUTHORS_TERMS_TITLE, "url": r.license_url},
            {"@type": "sc:CreativeWork", "name": texts.CC0_TERMS_TITLE, "url": texts.CC0_URL},
        ],
        "url": r.url,
        "citeAs": r.citation(),
        "keywords": ["NeurIPS", "abstracts", "deduplication", "provenance"],
        "creator": {"@type": "sc:Organization", "name": r.maintainers},
        **({"datePublished": r.date_published} if r.date_published else {}),
        "rai:dataCollection": texts.COLLECTION,
        "rai:dataCollectionType": "Web scraping",
        "rai:dataPreprocessingProtocol": texts.preprocessing(r.config),
        "rai:dataLimitations": texts.LIMITATIONS,
        "rai:dataBiases": texts.BIASES,
        "rai:personalSensitiveInformation": texts.PERSONAL_INFO,
        "rai:dataUseCases": texts.INTENDED_USES,
        "rai:dataSocialImpact": texts.SOCIAL_IMPACT,
        "rai:dataReleaseMaintenancePlan": texts.MAINTENANCE,
        "distribution": [_distribution(r, table) for table in TABLES],
        "recordSet": record_sets,
    }
