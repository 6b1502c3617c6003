#!/usr/bin/env bash
# Regenerates Sources/CastWire/Generated/*.pb.swift from proto/*.proto.
# The generated code is committed: the SwiftPM protobuf build plugin costs minutes
# on every cold build, and the .proto changes rarely.
#
# Needs `protoc` (Debian: protobuf-compiler; installed here if missing and we are root)
# and builds protoc-gen-swift from the same swift-protobuf version Package.swift pins.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v protoc >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq protobuf-compiler
    else
        echo "protoc not found: install protobuf-compiler" >&2; exit 1
    fi
fi

version=$(sed -n 's|.*apple/swift-protobuf.git", exact: "\([0-9.]*\)".*|\1|p' Package.swift)
workdir=.build-protoc
if [ ! -d "$workdir/swift-protobuf" ]; then
    mkdir -p "$workdir"
    git clone --quiet --depth 1 --branch "$version" https://github.com/apple/swift-protobuf.git "$workdir/swift-protobuf"
fi
swift build --package-path "$workdir/swift-protobuf" -c release --product protoc-gen-swift
plugin="$workdir/swift-protobuf/.build/release/protoc-gen-swift"

mkdir -p Sources/CastWire/Generated
protoc --plugin=protoc-gen-swift="$plugin" \
    --swift_opt=Visibility=Public \
    --swift_out=Sources/CastWire/Generated \
    --proto_path=proto proto/cast_channel.proto
echo "generated: $(ls Sources/CastWire/Generated)"
