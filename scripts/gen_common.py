"""What ktune's build-time generators share."""


def write_if_changed(path, text):
    """Writes `text` to `path` unless it already holds exactly that, so an unchanged output keeps
    its timestamp and nothing rebuilds."""
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
