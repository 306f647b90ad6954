"""HTML character references in a dump's text, as the renderer replaces them and ``validate``
warns about them: one pattern, so that what is flagged is what the build would read as one."""

from __future__ import annotations

import re

# A name of 2 to 31 letters and digits (the longest HTML5 name, CounterClockwiseContourIntegral,
# has 31), or a decimal or hex code point.
ENTITY_RE = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,30}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")
