"""What this project has published: the release tags in git and on the Hub, a release folder's
record, and the readers that compare, diff and verify releases against it."""
