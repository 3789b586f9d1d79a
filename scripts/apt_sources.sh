# Reads a machine's apt sources, so that scripts/setup.sh adds its deb-src and bookworm-backports
# entries on the Debian archive the machine already uses, and adds none that are already there.
# Sourced by scripts/setup.sh and tests/unit/apt_sources_test.sh. Bash and awk only: setup.sh runs
# it before any package is installed. Every function takes the apt directory (default /etc/apt),
# so a test can point it at sample files.
#
# Both formats are read:
#   one-line (ROOT/sources.list, ROOT/sources.list.d/*.list):
#     deb [signed-by=/k.gpg arch=amd64] http://mirror/debian bookworm main contrib  # comment
#   deb822 (ROOT/sources.list.d/*.sources): stanzas separated by blank lines, fields Types, URIs,
#     Suites, Components, Signed-By, Enabled ("Enabled: no" turns a stanza off), # comments.
# An entry counts only if its components include main: the packages setup.sh wants are in
# Debian's main, and third-party repositories also name their suite bookworm.
# shellcheck shell=bash

apt_default_uri=http://deb.debian.org/debian
apt_default_keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# apt_source_files [ROOT]: the source files, one a line. sources.list and debian.sources (where
# Debian's installer puts the archive) come first, then the rest of sources.list.d in name order.
# Like apt, it skips names with characters other than letters, digits, _ . and -.
apt_source_files() {
  local root=${1:-/etc/apt} f
  for f in "$root/sources.list" "$root/sources.list.d/debian.sources"; do
    [ -f "$f" ] && printf '%s\n' "$f"
  done
  for f in "$root"/sources.list.d/*; do
    case ${f##*/} in
      debian.sources | *[!A-Za-z0-9_.-]*) continue ;;
      *.list | *.sources) [ -f "$f" ] && printf '%s\n' "$f" ;;
    esac
  done
  return 0
}

# apt_entries [ROOT]: one line per enabled entry, per type and suite:
#   TYPE<TAB>URI<TAB>SUITE<TAB>COMPONENTS<TAB>SIGNED_BY<TAB>FILE
# URI is the stanza's first; COMPONENTS are space separated; SIGNED_BY is empty if the entry has
# none, or if it holds an embedded key (it cannot be copied into a one-line entry).
apt_entries() {
  local root=${1:-/etc/apt} files=()
  mapfile -t files < <(apt_source_files "$root")
  [ ${#files[@]} -gt 0 ] || return 0
  # shellcheck disable=SC2016  # awk's $ fields, not the shell's
  awk '
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
    function emit(type, uri, suite, comps, signed, file) {
      printf "%s\t%s\t%s\t%s\t%s\t%s\n", type, uri, suite, comps, signed, file
    }
    # A deb822 stanza ends: emit it unless it is turned off.
    function flush(   nt, nu, ns, t, u, s, i, j, comps, signed, on) {
      if (stanza_file != "") {
        on = tolower(f["enabled"])
        nt = split(f["types"], t, " ")
        nu = split(f["uris"], u, " ")
        ns = split(f["suites"], s, " ")
        comps = f["components"]
        gsub(/[ \t]+/, " ", comps)
        signed = embedded ? "" : f["signed-by"]
        if (on !~ /^(no|false|off|0|disable|without)$/ && nu > 0)
          for (i = 1; i <= nt; i++)
            for (j = 1; j <= ns; j++) emit(t[i], u[1], s[j], comps, signed, stanza_file)
      }
      split("", f)
      stanza_file = ""; last = ""; embedded = 0
    }
    FNR == 1 { flush(); deb822 = FILENAME ~ /\.sources$/ }
    { sub(/\r$/, "") }
    deb822 {
      if ($0 ~ /^[ \t]*$/) { flush(); next }
      if ($0 ~ /^#/) next
      if ($0 ~ /^[ \t]/) {  # a continuation line
        if (last == "signed-by") embedded = 1
        else if (last != "") f[last] = f[last] " " trim($0)
        next
      }
      colon = index($0, ":")
      if (colon == 0) next
      last = tolower(trim(substr($0, 1, colon - 1)))
      f[last] = trim(substr($0, colon + 1))
      if (stanza_file == "") stanza_file = FILENAME
      next
    }
    {
      sub(/#.*/, "")
      line = trim($0)
      if (line == "") next
      split(line, w, /[ \t]+/)
      type = w[1]
      if (type != "deb" && type != "deb-src") next
      rest = trim(substr(line, length(type) + 1))
      if (rest ~ /^cdrom:/) next  # its URI holds spaces; a disc is no use here
      signed = ""
      if (substr(rest, 1, 1) == "[") {
        close_at = index(rest, "]")
        if (close_at == 0) next
        no = split(substr(rest, 2, close_at - 2), opts, /[ \t]+/)
        for (i = 1; i <= no; i++)
          if (tolower(opts[i]) ~ /^signed-by=/) signed = substr(opts[i], 11)
        rest = trim(substr(rest, close_at + 1))
      }
      n = split(rest, w, /[ \t]+/)
      if (n < 2) next
      comps = ""
      for (i = 3; i <= n; i++) comps = comps (i > 3 ? " " : "") w[i]
      emit(type, w[1], w[2], comps, signed, FILENAME)
    }
    END { flush() }
  ' "${files[@]}"
}

# apt_debian_uri [ROOT]: the Debian archive of the machine's first enabled "deb" entry for suite
# bookworm (not bookworm-updates, -security or -backports) with component main. Prints
# URI<TAB>FILE<TAB>SIGNED_BY, SIGNED_BY being Debian's archive keyring if the entry names none.
# Prints nothing and fails if there is no such entry. cdrom: entries are skipped: a disc holds
# neither sources nor backports.
apt_debian_uri() {
  local root=${1:-/etc/apt}
  # shellcheck disable=SC2016
  apt_entries "$root" | awk -F '\t' -v keyring="$apt_default_keyring" '
    !found && $1 == "deb" && $3 == "bookworm" && (" " $4 " ") ~ / main / && $2 !~ /^cdrom:/ {
      print $2 "\t" $6 "\t" ($5 != "" ? $5 : keyring)
      found = 1
    }
    END { exit !found }'
}

# apt_has_entry ROOT TYPE SUITE: succeeds if an enabled entry of TYPE (deb or deb-src) for SUITE
# with component main is configured, and prints the file of the first one. An empty ROOT is
# /etc/apt.
apt_has_entry() {
  local root=${1:-/etc/apt} type=$2 suite=$3
  # shellcheck disable=SC2016
  apt_entries "$root" | awk -F '\t' -v type="$type" -v suite="$suite" '
    !found && $1 == type && $3 == suite && (" " $4 " ") ~ / main / { print $6; found = 1 }
    END { exit !found }'
}

# apt_archive [ROOT]: sets apt_archive_uri and apt_archive_keyring to the machine's Debian archive
# (apt_debian_uri), or to deb.debian.org and Debian's archive keyring if it has none, and prints
# a line saying which it chose and why.
# shellcheck disable=SC2034  # the two variables are read by setup.sh
apt_archive() {
  local root=${1:-/etc/apt} found from
  if found=$(apt_debian_uri "$root"); then
    IFS=$'\t' read -r apt_archive_uri from apt_archive_keyring <<<"$found"
    echo "setup: using the Debian archive $apt_archive_uri (from $from)"
  else
    apt_archive_uri=$apt_default_uri
    apt_archive_keyring=$apt_default_keyring
    echo "setup: no bookworm entry with component main in the sources under $root;" \
      "using the Debian archive $apt_archive_uri"
  fi
}
