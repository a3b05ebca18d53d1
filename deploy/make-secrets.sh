#!/bin/sh
# Writes deploy/secrets/ for deploy/compose.yaml, once (an existing file is kept):
#
#   postgres_password  48 hex digits: letters and digits only, so it goes into the URL below as it
#                      is (a password with @ : / % # ? would have to be percent-encoded in the URL,
#                      and the database would then be given a different password than the URL says)
#   database_url       postgres://verbatim:<that password>@postgres:5432/verbatim (DATABASE_URL_FILE)
#   blob_signing_key   the HMAC key of signed upload URLs (VERBATIM_BLOB_SIGNING_KEY_FILE)
#   assemblyai_api_key AssemblyAI's key (ASSEMBLYAI_API_KEY_FILE), written empty: put the key in it
#                      to use AssemblyAI; empty, the image's local pocketsphinx (English) is used
#
# Usage: sh deploy/make-secrets.sh
set -eu
dir="$(dirname "$0")/secrets"
# The folder is the owner's alone; the files are readable by any user because compose mounts them
# as they are into containers whose processes run as other users (node, postgres).
mkdir -p "$dir"
chmod 700 "$dir"
umask 022
random_hex() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }
[ -s "$dir/postgres_password" ] || random_hex 24 > "$dir/postgres_password"
[ -s "$dir/database_url" ] ||
  printf 'postgres://verbatim:%s@postgres:5432/verbatim\n' "$(cat "$dir/postgres_password")" > "$dir/database_url"
[ -s "$dir/blob_signing_key" ] || random_hex 32 > "$dir/blob_signing_key"
[ -e "$dir/assemblyai_api_key" ] || : > "$dir/assemblyai_api_key"
echo "secrets in $dir: postgres_password, database_url, blob_signing_key, assemblyai_api_key"
