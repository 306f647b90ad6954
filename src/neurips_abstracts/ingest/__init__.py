"""The build's inputs: raw/ and its dumps' metadata files, parsing, validation and the previous release.
May import core/ and text/."""
