"""What senders see on the network, run inside a sender namespace by the discovery tests.

Each command prints JSON lines on standard output:

  browse SECONDS [TYPE]  python-zeroconf browsing TYPE (default _googlecast._tcp.local.):
                       one line per added, updated or removed service (with its SRV,
                       addresses and TXT), as they happen, for SECONDS
  resolve TYPE NAME     python-zeroconf resolving one instance: one line with its SRV,
                       addresses and TXT
  chromecasts SECONDS  pychromecast.get_chromecasts(): one line with every device found
  play NAME URL        find NAME with pychromecast, play URL on it, wait for PLAYING
  multizone HOST       pychromecast.dial.get_multizone_status(HOST): the groups HOST's
                       eureka_info (HTTPS 8443) lists, with where pychromecast would find them
  packets SECONDS IGNORE  every IPv4 mDNS packet on the wire for SECONDS, but those from
                       IGNORE (this side's own address): one line per packet, with the Cast
                       instances its records name
"""

from __future__ import annotations

import json
import sys
import threading
import time

import zeroconf
from zeroconf import ServiceStateChange, Zeroconf

SERVICE = "_googlecast._tcp.local."


def emit(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


def describe(zc: Zeroconf, service_type: str, name: str) -> dict:
    info = zc.get_service_info(service_type, name, timeout=3000)
    if info is None:
        return {"name": name}
    return {
        "name": name,
        "server": info.server,
        "port": info.port,
        "addresses": info.parsed_addresses(),
        "txt": {key.decode(): (value.decode() if value is not None else None) for key, value in info.properties.items()},
    }


def browse(seconds: float, service_type: str = SERVICE) -> None:
    zc = Zeroconf()
    lock = threading.Lock()

    def changed(zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        # Looked up off the browser's thread: get_service_info blocks.
        def report() -> None:
            with lock:
                if state_change is ServiceStateChange.Removed:
                    emit(event="removed", name=name, time=time.time())
                else:
                    # A subtype's instances resolve under the service type itself.
                    resolved_type = SERVICE if "._sub." in service_type else service_type
                    emit(event=state_change.name.lower(), time=time.time(), **describe(zeroconf, resolved_type, name))
        threading.Thread(target=report, daemon=True).start()

    zeroconf.ServiceBrowser(zc, service_type, handlers=[changed])
    time.sleep(seconds)
    zc.close()


def chromecasts(seconds: float) -> None:
    import pychromecast

    casts, browser = pychromecast.get_chromecasts(timeout=seconds)
    emit(devices=[{
        "friendly_name": cast.cast_info.friendly_name,
        "model_name": cast.cast_info.model_name,
        "uuid": str(cast.cast_info.uuid),
        "cast_type": cast.cast_info.cast_type,
        "manufacturer": cast.cast_info.manufacturer,
        "host": cast.cast_info.host,
        "port": cast.cast_info.port,
    } for cast in casts])
    browser.stop_discovery()


def play(name: str, url: str) -> None:
    import pychromecast

    # pychromecast writes to its TLS socket from two threads at once; on a busy machine
    # that sends a corrupt record and castsim drops the connection (BAD_DECRYPT, seen in
    # CI). Serialized per client when imported.
    import castsim.pychromecast_io  # noqa: F401

    casts, browser = pychromecast.get_listed_chromecasts(friendly_names=[name], timeout=10)
    if not casts:
        emit(error=f"{name} not found")
        return
    cast = casts[0]
    cast.wait(timeout=10)
    controller = cast.media_controller
    controller.play_media(url, "video/mp4")
    controller.block_until_active(timeout=10)
    deadline = time.time() + 10
    while time.time() < deadline and controller.status.player_state != "PLAYING":
        time.sleep(0.1)
    emit(player_state=controller.status.player_state, content_id=controller.status.content_id, app_id=cast.app_id)
    cast.disconnect(timeout=5)
    browser.stop_discovery()


def multizone(host: str) -> None:
    from pychromecast import dial

    status = dial.get_multizone_status(host, timeout=10)
    if status is None:
        emit(error=f"no multizone status from {host}")
        return
    emit(groups=[{"name": group.friendly_name, "uuid": str(group.uuid), "host": group.host, "port": group.port}
                 for group in status.groups], dynamic_groups=len(status.dynamic_groups))


def packets(seconds: float, ignore: str) -> None:
    import socket
    import struct

    from zeroconf import DNSIncoming

    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(("0.0.0.0", 5353))
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, struct.pack("4s4s", socket.inet_aton("224.0.0.251"),
                                                                            socket.inet_aton(ignore)))
    emit(listening=True)
    deadline = time.time() + seconds
    while (left := deadline - time.time()) > 0:
        sock.settimeout(left)
        try:
            data, (source, _) = sock.recvfrom(9000)
        except socket.timeout:
            break
        if source == ignore:
            continue
        message = DNSIncoming(data)
        records = message.answers()
        instances = sorted({record.name for record in records if record.name.endswith("." + SERVICE) and record.type == 33}
                           | {question.name for question in message.questions if question.name.endswith("." + SERVICE)})
        emit(source=source, size=len(data), response=message.is_response(), instances=instances,
             goodbyes=sorted({record.name for record in records if record.ttl == 0 and record.type == 33}))
    sock.close()


if __name__ == "__main__":
    command, *arguments = sys.argv[1:]
    if command == "browse":
        browse(float(arguments[0]), *arguments[1:])
    elif command == "chromecasts":
        chromecasts(float(arguments[0]))
    elif command == "play":
        play(arguments[0], arguments[1])
    elif command == "resolve":
        zc = Zeroconf()
        emit(**describe(zc, arguments[0], arguments[1]))
        zc.close()
    elif command == "multizone":
        multizone(arguments[0])
    elif command == "packets":
        packets(float(arguments[0]), arguments[1])
    else:
        sys.exit(f"unknown command {command}")
