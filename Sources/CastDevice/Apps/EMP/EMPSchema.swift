import CastWire

extension EMPApp {
    /// The JSON Schema of the EMP receiver's scenario section (`exposure`), its timeline
    /// action (`emp`) and its panel in the control API's state: castsim puts them into the
    /// scenario schema (`castsim schema`) and the OpenAPI document it serves.
    static let schema = AppSchema(json: #"""
{
  "$defs": {
    "exposure": {
      "type": "object",
      "additionalProperties": false,
      "description": "The Exposure backend of the EMP receiver. With this section only what it declares plays; without it every token and business unit is accepted and any asset id plays as a VOD asset.",
      "properties": {
        "epoch": {
          "$ref": "#/$defs/isoTime",
          "description": "Wall time at scenario time 0: ISO times sent are epoch + scenario time. Default 2026-01-01T12:00:00Z."
        },
        "businessUnits": {
          "type": "array",
          "description": "Customers' business units and their session tokens; a token belongs to one business unit, a customer and businessUnit pair is declared once.",
          "items": {
            "type": "object",
            "required": ["customer", "businessUnit"],
            "additionalProperties": false,
            "properties": {
              "customer": {"type": "string", "minLength": 1},
              "businessUnit": {"type": "string", "minLength": 1},
              "sessionTokens": {
                "type": "object",
                "description": "Token → valid or expired; a token not listed anywhere is unknown (INVALID_SESSION_TOKEN).",
                "propertyNames": {"minLength": 1},
                "additionalProperties": {"enum": ["valid", "expired"]}
              }
            }
          }
        },
        "assets": {
          "type": "object",
          "description": "VOD assets by asset id (an id is an asset or a channel, not both).",
          "propertyNames": {"minLength": 1},
          "additionalProperties": {"$ref": "#/$defs/exposureAsset"}
        },
        "channels": {
          "type": "object",
          "description": "Live channels by channel id, each with its EPG.",
          "propertyNames": {"minLength": 1},
          "additionalProperties": {"$ref": "#/$defs/exposureChannel"}
        },
        "realReceiverExtras": {
          "type": "boolean",
          "default": false,
          "description": "Also send what receiver 2.79 sends and iOS senders reject: assetchanged, liveDelay, fractional segmentmissing."
        },
        "liveDelay": {
          "$ref": "#/$defs/duration",
          "description": "The liveDelay event's value (realReceiverExtras). Default 30s."
        }
      }
    },
    "exposureAsset": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "title": {"type": "string"},
        "duration": {"$ref": "#/$defs/duration", "description": "Default: the device's defaultMediaDuration."},
        "textLanguages": {"$ref": "#/$defs/languages"},
        "audioLanguages": {"$ref": "#/$defs/languages"},
        "gaps": {
          "type": "array",
          "description": "Where segments are missing: a seek into one is cancelled with segmentmissing. from < to <= duration.",
          "items": {"$ref": "#/$defs/span"}
        },
        "bookmark": {
          "$ref": "#/$defs/duration",
          "description": "Where the viewer stopped last time (playFrom bookmark, useLastViewedOffset); less than duration."
        },
        "entitlement": {"$ref": "#/$defs/entitlement"}
      }
    },
    "exposureChannel": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "title": {"type": "string"},
        "textLanguages": {"$ref": "#/$defs/languages"},
        "audioLanguages": {"$ref": "#/$defs/languages"},
        "programs": {
          "type": "array",
          "description": "The EPG in start order, not overlapping; programIds unique within the channel.",
          "items": {"$ref": "#/$defs/exposureProgram"}
        },
        "entitlement": {"$ref": "#/$defs/entitlement"}
      }
    },
    "exposureProgram": {
      "type": "object",
      "required": ["programId", "assetId", "start", "end"],
      "additionalProperties": false,
      "properties": {
        "programId": {"type": "string", "minLength": 1},
        "assetId": {"type": "string", "minLength": 1},
        "title": {"type": "string"},
        "start": {"$ref": "#/$defs/duration", "description": "On air from this scenario time."},
        "end": {"$ref": "#/$defs/duration", "description": "Off air at this scenario time; after start."}
      }
    },
    "span": {
      "type": "object",
      "required": ["from", "to"],
      "additionalProperties": false,
      "description": "Media positions from < to.",
      "properties": {"from": {"$ref": "#/$defs/duration"}, "to": {"$ref": "#/$defs/duration"}}
    },
    "entitlement": {
      "description": "What Exposure answers a play request with: a grant (every key optional; {} grants the defaults) or a refusal. Missing: granted with the defaults.",
      "oneOf": [{"$ref": "#/$defs/grant"}, {"$ref": "#/$defs/refusal"}]
    },
    "grant": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "live": {"type": "boolean", "description": "Default: true for a channel, false for an asset."},
        "ffEnabled": {"type": "boolean", "default": true},
        "rwEnabled": {"type": "boolean", "default": true},
        "timeshiftEnabled": {"type": "boolean", "default": true},
        "airplayBlocked": {"type": "boolean", "default": false},
        "minBitrate": {"type": "integer", "minimum": 0},
        "maxBitrate": {"type": "integer", "minimum": 0},
        "maxResHeight": {"type": "integer", "minimum": 0}
      }
    },
    "refusal": {
      "type": "object",
      "required": ["refuse"],
      "additionalProperties": false,
      "properties": {
        "refuse": {
          "type": "string",
          "minLength": 1,
          "description": "The Exposure message, sent as the error event's message.",
          "examples": ["NOT_ENTITLED", "GEO_BLOCKED", "CONCURRENT_STREAMS_LIMIT_REACHED"]
        },
        "code": {
          "type": "integer",
          "default": 102,
          "description": "The error event's code (EMP player error codes: 102 ENTITLEMENT)."
        }
      }
    },
    "isoTime": {
      "type": "string",
      "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$",
      "description": "ISO 8601 wall time with Z or an offset, fractional seconds optional: \"2026-05-01T18:00:00Z\", \"2026-05-01T20:00:00.5+02:00\"."
    },
    "languages": {
      "type": "array",
      "items": {"type": "string", "minLength": 1},
      "uniqueItems": true,
      "description": "Language codes, one track each: text tracks first, then audio tracks, ids from 0. A single audio language exposes no audio track."
    }
  },
  "sections": {"exposure": {"$ref": "#/$defs/exposure"}},
  "actions": {
    "emp": {
      "type": "object",
      "additionalProperties": false,
      "description": "Something in the EMP receiver's world: exactly one of event (with optional data), entitlement, endProgram, segmentMissing.",
      "oneOf": [
        {"required": ["event"]},
        {"required": ["entitlement"]},
        {"required": ["endProgram"]},
        {"required": ["segmentMissing"]}
      ],
      "dependentRequired": {"data": ["event"]},
      "properties": {
        "event": {
          "type": "string",
          "minLength": 1,
          "description": "Broadcast this EMP event type (tracksupdated, error ...)."
        },
        "data": {
          "description": "Any JSON, sent as the event's data; without it the receiver sends its current value."
        },
        "entitlement": {
          "$ref": "#/$defs/entitlement",
          "description": "The entitlement of what plays changes: entitlementchange, or error and the end of playback for a refusal."
        },
        "endProgram": {
          "const": true,
          "description": "The program on air ends now; the next starts (startTimeLive, programchanged)."
        },
        "segmentMissing": {
          "$ref": "#/$defs/span",
          "description": "Segments of what plays go missing from this position to that one."
        }
      }
    }
  },
  "panel": {
    "type": "object",
    "required": ["lastEvents", "summary"],
    "description": "What the EMP receiver plays: asset or channel, program, entitlement flags, a one-line summary and a title for the dashboard, and the newest EMP custom-namespace events sent.",
    "properties": {
      "assetId": {"type": ["string", "null"]},
      "channelId": {"type": ["string", "null"]},
      "programId": {"type": ["string", "null"]},
      "live": {"type": "boolean"},
      "timeshiftEnabled": {"type": "boolean"},
      "autoplay": {"type": "boolean"},
      "customer": {"type": ["string", "null"]},
      "businessUnit": {"type": ["string", "null"]},
      "entitlement": {"type": "object", "description": "The entitlement flags of what plays."},
      "lastEvents": {
        "type": "array",
        "maxItems": 20,
        "items": {"type": "object"},
        "description": "The newest EMP custom-namespace events sent, oldest first, up to 20."
      },
      "summary": {
        "type": "string",
        "description": "One line saying what plays, e.g. \"EMP · LIVE · channel ch-1 · Evening News\"."
      },
      "title": {
        "type": ["string", "null"],
        "description": "The program's, asset's or channel's title (or id) shown as what plays."
      }
    }
  }
}
"""#)
}
