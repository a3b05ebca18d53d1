# `missing_packages <package>...`: sets the array `missing` to the Debian packages named that are not
# installed, asking dpkg once for all of them (a `dpkg-query` per package cost each `pnpm start`
# about 15 ms per package). Callers check for dpkg-query first.
missing_packages() {
  missing=()
  local status p
  status=$'\n'$(dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null)$'\n'
  for p in "$@"; do
    [[ $status == *$'\n'"$p install ok installed"$'\n'* ]] || missing+=("$p")
  done
}
