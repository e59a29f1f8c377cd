#!/bin/sh
# An OCI runtime for dockerd (`--add-runtime`) on a host whose capability
# bounding set lacks CAP_SYS_RESOURCE (a sandboxed VM): Docker 20.10 gives a
# --privileged container every capability it knows, runc cannot grant one the
# host does not have, and the container fails with "unable to apply caps".
# This removes CAP_SYS_RESOURCE from the container's (create, run) or the
# exec'd process's (exec) capability sets, then hands every argument to the
# real runc unchanged. Nothing else of the spec is touched.
set -eu

runc=${SHICE_REAL_RUNC:-runc}
drop='map_values(if type == "array" then map(select(. != "CAP_SYS_RESOURCE")) else . end)'

subcommand=''
bundle=.
process=''
expect=''
for arg in "$@"; do
  if [ -n "$expect" ]; then
    case "$expect" in
      bundle) bundle=$arg ;;
      process) process=$arg ;;
    esac
    expect=''
    continue
  fi
  case "$arg" in
    --bundle | -b) expect=bundle ;;
    --bundle=*) bundle=${arg#--bundle=} ;;
    --process | -p) expect=process ;;
    --process=*) process=${arg#--process=} ;;
    # runc's global flags that take a value: skip the value.
    --root | --log | --log-format | --criu | --rootless) [ -z "$subcommand" ] && expect=skip ;;
    -*) ;;
    *) [ -z "$subcommand" ] && subcommand=$arg ;;
  esac
done

rewrite() { # file jq-filter
  tmp="$1.shice-tmp"
  jq -c "$2" "$1" > "$tmp"
  mv "$tmp" "$1"
}

case "$subcommand" in
  create | run)
    rewrite "$bundle/config.json" "if .process.capabilities then .process.capabilities |= $drop else . end" ;;
  exec)
    if [ -n "$process" ]; then rewrite "$process" "if .capabilities then .capabilities |= $drop else . end"; fi ;;
esac
exec "$runc" "$@"
