#!/bin/sh
# The read-only probe; its sections are defined by issue 3.
echo "dynamo-interconnect-probe v0"
