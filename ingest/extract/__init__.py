"""Turn a `RawDocument` into a `Document`: title, languages, libraries, error lines, tracebacks, root cause,
fixes with who verified them, versions, references and sections.

One module per field or concept; `ingest.extract.document.extract_document` puts them together. Structured fields
come from the sections (`ingest.sections`); a document without headings falls back to sentence cues (原因是 /
because …, 解决 / fix …). Entries with front matter are read by `ingest.frontmatter.parse_entry`, which uses these
modules for the fields its front matter leaves out (so nothing here imports it but `document`).
"""
