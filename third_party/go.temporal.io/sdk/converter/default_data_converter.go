package converter

import commonconverter "go.temporal.io/sdk/internal/common/converter"

var (
	defaultDataConverter = commonconverter.MakeTransferAware(NewCompositeDataConverter(
		NewNilPayloadConverter(),
		NewByteSlicePayloadConverter(),

		// Order is important here. Both ProtoJsonPayload and ProtoPayload converters check for the same proto.Message
		// interface. The first match (ProtoJsonPayload in this case) will always be used for serialization.
		// Deserialization is controlled by metadata, therefore both converters can deserialize corresponding data format
		// (JSON or binary proto).
		NewProtoJSONPayloadConverter(),
		NewProtoPayloadConverter(),

		NewJSONPayloadConverter(),
	))
)

// GetDefaultDataConverter returns default data converter used by Temporal worker.
// It supports transfer type conversion for top-level values implementing
// [ValueWithTransferTypeConverter].
func GetDefaultDataConverter() DataConverter {
	return defaultDataConverter
}
