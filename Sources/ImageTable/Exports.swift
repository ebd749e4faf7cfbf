@_exported import FICCore
