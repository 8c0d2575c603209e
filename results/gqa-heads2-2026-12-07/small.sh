#!/bin/sh
# usage: small.sh TAG L2 H  (env as given)
cd /work/wt-gqaheads2
${BIN:-/tmp/gq2/iosim-hack} --config results/gqa-heads2-2026-12-07/a100-4sm-256k.yaml --heads "$3" --kv-heads $(( $3 / 4 )) --n 4096 --d 64 --causal --schedule flash2 --pass fwd --predict -f json --l2 "$2" > "/tmp/gq2/$1-$2-s$3.json"
