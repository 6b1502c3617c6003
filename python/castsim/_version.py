# castsim's version, as Sources/CastSimulator/CastsimVersion.swift says it (tests check they agree).
__version__ = "0.12.0"
