#include "io/dicom/dicom_deidentify.h"

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dctk.h>

#include <ctime>
#include <set>
#include <vector>

#include "io/base/file_read.h"
#include "io/base/sha256.h"
#include "io/dicom/dicom_internal.h"

namespace delineate::io {
namespace {

using core::ErrorCode;
using core::makeError;

std::string hex(const std::array<std::uint8_t, 32>& d, std::size_t bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < bytes; ++i) {
    out += digits[d[i] >> 4];
    out += digits[d[i] & 15];
  }
  return out;
}

// Attributes the Basic Profile removes (X) or empties (Z) that are not caught by the generic rules (every private
// attribute and every person name other than the patient's goes anyway).
const DcmTagKey kRemove[] = {
    DCM_PatientBirthTime, DCM_RETIRED_OtherPatientIDs, DCM_OtherPatientNames, DCM_OtherPatientIDsSequence,
    DCM_PatientBirthName, DCM_PatientAge, DCM_PatientSize, DCM_PatientWeight, DCM_PatientAddress,
    DCM_PatientMotherBirthName, DCM_MilitaryRank, DCM_BranchOfService, DCM_RETIRED_MedicalRecordLocator, DCM_MedicalAlerts,
    DCM_Allergies, DCM_CountryOfResidence, DCM_RegionOfResidence, DCM_PatientTelephoneNumbers, DCM_EthnicGroup,
    DCM_Occupation, DCM_AdditionalPatientHistory, DCM_PatientComments, DCM_InstitutionName, DCM_InstitutionAddress,
    DCM_InstitutionCodeSequence, DCM_InstitutionalDepartmentName, DCM_StationName, DCM_ReferringPhysicianAddress,
    DCM_ReferringPhysicianTelephoneNumbers, DCM_StudyDescription, DCM_SeriesDescription, DCM_DeviceSerialNumber,
    DCM_ProtocolName, DCM_RequestAttributesSequence, DCM_PerformedProcedureStepID,
    DCM_PerformedProcedureStepDescription, DCM_ImageComments, DCM_AdmittingDiagnosesDescription,
    DCM_ReferencedPatientSequence, DCM_PerformedStationName, DCM_PerformedLocation, DCM_ScheduledProcedureStepDescription,
    DCM_RequestedProcedureDescription, DCM_RETIRED_ReasonForStudy, DCM_DerivationDescription, DCM_RETIRED_AcquisitionComments,
    DCM_RETIRED_TextComments, DCM_AdmissionID, DCM_IssuerOfPatientID, DCM_RETIRED_InsurancePlanIdentification,
    DCM_PatientInsurancePlanCodeSequence, DCM_PatientState, DCM_PregnancyStatus, DCM_SmokingStatus,
    DCM_LastMenstrualDate, DCM_ResponsibleOrganization, DCM_ResponsiblePerson, DCM_CurrentPatientLocation,
    DCM_VisitComments, DCM_ServiceEpisodeDescription, DCM_RETIRED_StudyComments, DCM_PatientReligiousPreference,
    DCM_PatientTelecomInformation, DCM_PatientInstitutionResidence, DCM_PatientPrimaryLanguageCodeSequence,
    DCM_IssuerOfPatientIDQualifiersSequence, DCM_RequestedProcedureID, DCM_PlacerOrderNumberImagingServiceRequest,
    DCM_FillerOrderNumberImagingServiceRequest, DCM_ScheduledProcedureStepID, DCM_RequestingService,
    DCM_RequestedProcedureComments, DCM_ImagingServiceRequestComments, DCM_CommentsOnThePerformedProcedureStep,
    DCM_PerformedStationAETitle, DCM_StationAETitle, DCM_ScheduledStationAETitle,
    DCM_ReferringPhysicianIdentificationSequence, DCM_PerformingPhysicianIdentificationSequence,
    DCM_OperatorIdentificationSequence, DCM_PhysiciansOfRecordIdentificationSequence,
    DCM_PhysiciansReadingStudyIdentificationSequence, DCM_DetectorID, DCM_GeneratorID, DCM_CassetteID, DCM_PlateID,
    DCM_IssuerOfAccessionNumberSequence, DCM_OrderEntererLocation, DCM_OrderCallbackPhoneNumber,
    DCM_ReferencedPatientPhotoSequence,
    // Structured-report content and free text can name anyone: not kept.
    DCM_ContentSequence, DCM_TextValue};
// Inside sequences (where the profile's "empty" would leave a second copy of an identifier): removed.
const DcmTagKey kRemoveNested[] = {DCM_PatientID, DCM_PatientName, DCM_AccessionNumber, DCM_StudyID, DCM_PatientBirthDate,
                                   DCM_PatientSex, DCM_IssuerOfPatientID};
// The file meta header: who sent it and private data.
const DcmTagKey kRemoveMeta[] = {DCM_SourceApplicationEntityTitle, DCM_SendingApplicationEntityTitle,
                                 DCM_ReceivingApplicationEntityTitle, DCM_PrivateInformationCreatorUID,
                                 DCM_PrivateInformation};
// SOP classes whose pixels are pictures of screens or documents (secondary capture, encapsulated PDF/CDA): refused
// unless Burned In Annotation says NO.
bool picturesOfText(const std::string& sopClass) {
  return sopClass.rfind("1.2.840.10008.5.1.4.1.1.7", 0) == 0 || sopClass.rfind("1.2.840.10008.5.1.4.1.1.104.", 0) == 0;
}
const DcmTagKey kEmpty[] = {DCM_PatientBirthDate, DCM_PatientSex, DCM_AccessionNumber, DCM_StudyID,
                            DCM_ReferringPhysicianName};

bool isStandardUid(const std::string& uid) { return uid.rfind("1.2.840.10008.", 0) == 0; }

// YYYYMMDD moved back by `days`; empty when the value is not a plain date.
std::string shiftDate(const std::string& date, int days);

// Every value of a DA or DT ('\\'-separated) moved back by `days`; empty when any is not a plain date (a range, a
// damaged value): such an attribute is removed rather than kept as it was.
std::string shiftDates(const std::string& value, int days) {
  std::string out;
  std::size_t start = 0;
  while (start <= value.size()) {
    std::size_t end = value.find('\\', start);
    if (end == std::string::npos) end = value.size();
    std::string part = value.substr(start, end - start);
    while (!part.empty() && part.back() == ' ') part.pop_back();
    if (part.find('-') != std::string::npos) return {};  // a range (queries only)
    const std::string shifted = part.empty() ? std::string() : shiftDate(part, days);
    if (!part.empty() && shifted.empty()) return {};
    if (start > 0) out += '\\';
    out += shifted;
    start = end + 1;
  }
  return out;
}

std::string shiftDate(const std::string& date, int days) {
  if (date.size() < 8) return {};
  for (int i = 0; i < 8; ++i)
    if (date[std::size_t(i)] < '0' || date[std::size_t(i)] > '9') return {};
  std::tm tm{};
  tm.tm_year = std::stoi(date.substr(0, 4)) - 1900;
  tm.tm_mon = std::stoi(date.substr(4, 2)) - 1;
  tm.tm_mday = std::stoi(date.substr(6, 2)) - days;  // timegm normalises the day count
  tm.tm_hour = 12;
  const std::time_t t = timegm(&tm);
  std::tm out{};
  gmtime_r(&t, &out);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y%m%d", &out);
  return std::string(buf) + date.substr(8);  // a DT keeps its time part
}

// 1..365 days, per patient and key.
int dateShiftDays(const DeidentifyKey& key, const std::string& patientId) {
  const auto h = hmacSha256(key.secret, "date-shift:" + patientId);
  return 1 + int(((std::uint32_t(h[0]) << 8) | h[1]) % 365);
}

class Deidentifier {
 public:
  Deidentifier(const DeidentifyKey& key, const std::string& patientId)
      : m_key(key), m_days(dateShiftDays(key, patientId)) {}

  // Applies the generic rules to `item` and its sequences; `top` is the dataset itself.
  OFCondition clean(DcmItem* item, bool top) {
    std::vector<DcmTagKey> remove;
    for (unsigned long i = 0; i < item->card(); ++i) {
      DcmElement* e = item->getElement(i);
      const DcmTag& tag = e->getTag();
      if (tag.isPrivate()) {
        remove.push_back(tag);
        continue;
      }
      // Overlay data and comments (60xx,3000) and (60xx,4000): annotations drawn on the image.
      if ((tag.getGroup() & 0xFF00) == 0x6000 && (tag.getElement() == 0x3000 || tag.getElement() == 0x4000)) {
        remove.push_back(tag);
        continue;
      }
      const DcmEVR vr = e->ident();
      if (vr == EVR_SQ) {
        auto* seq = static_cast<DcmSequenceOfItems*>(e);
        for (unsigned long j = 0; j < seq->card(); ++j)
          if (OFCondition c = clean(seq->getItem(j), false); c.bad()) return c;
      } else if (vr == EVR_PN) {
        if (!(top && tag == DCM_PatientName)) remove.push_back(tag);
      } else if (vr == EVR_UI) {
        OFString value;
        e->getOFStringArray(value);
        std::string mapped, part;
        const std::string text = value.c_str();
        std::size_t start = 0;
        while (start <= text.size()) {
          std::size_t end = text.find('\\', start);
          if (end == std::string::npos) end = text.size();
          part = text.substr(start, end - start);
          while (!part.empty() && (part.back() == ' ' || part.back() == '\0')) part.pop_back();
          if (!mapped.empty() || start > 0) mapped += '\\';
          mapped += part.empty() || isStandardUid(part) ? part : pseudonymUid(m_key, part);
          start = end + 1;
        }
        if (OFCondition c = e->putOFStringArray(mapped.c_str()); c.bad()) return c;
      } else if (vr == EVR_DA || vr == EVR_DT) {
        OFString value;
        e->getOFStringArray(value);
        if (value.empty()) continue;
        const std::string shifted = shiftDates(value.c_str(), m_days);
        if (shifted.empty()) remove.push_back(tag);  // a range or a damaged value: not kept as it was
        else if (OFCondition c = e->putOFStringArray(shifted.c_str()); c.bad()) return c;
      }
    }
    for (const DcmTagKey& k : kRemove) remove.push_back(k);
    if (!top)
      for (const DcmTagKey& k : kRemoveNested) remove.push_back(k);
    for (const DcmTagKey& k : remove) item->findAndDeleteElement(k, OFFalse, OFFalse);
    if (top)
      for (const DcmTagKey& k : kEmpty)
        if (item->tagExists(k)) item->putAndInsertString(k, "");
    return EC_Normal;
  }

 private:
  const DeidentifyKey& m_key;
  int m_days = 1;
};

}  // namespace

core::Result<DeidentifyKey> readDeidentifyKey(const std::string& path) {
  auto text = readSecretFile(path, 1 << 20, "de-identification key");  // refused where others may read it
  if (!text) return text.error();
  if (text->size() < kMinDeidentifyKeyBytes)
    return makeError(ErrorCode::InvalidArgument, path,
                     "a de-identification key needs at least " + std::to_string(kMinDeidentifyKeyBytes) +
                         " bytes (e.g. head -c 32 /dev/urandom > key)");
  return DeidentifyKey{std::move(text).value()};
}

std::string pseudonymFor(const DeidentifyKey& key, const std::string& patientId) {
  return "ANON-" + hex(hmacSha256(key.secret, "patient:" + patientId), 6);
}

std::string shiftedDate(const DeidentifyKey& key, const std::string& patientId, const std::string& date) {
  return shiftDate(date, dateShiftDays(key, patientId));
}

std::string pseudonymUid(const DeidentifyKey& key, const std::string& uid) {
  const auto h = hmacSha256(key.secret, "uid:" + uid);
  __extension__ typedef unsigned __int128 Uint128;  // GCC and Clang; the 128 bits as one decimal number
  Uint128 v = 0;
  for (int i = 0; i < 16; ++i) v = (v << 8) | h[std::size_t(i)];
  std::string digits;
  do {
    digits.insert(digits.begin(), char('0' + int(v % 10)));
    v /= 10;
  } while (v != 0);
  return "2.25." + digits;
}

core::Status deidentifyDicomFile(const std::string& inputPath, const std::string& outputPath, const DeidentifyKey& key) {
  dicom_detail::ensureDcmtkReady();
  DcmFileFormat ff;
  if (OFCondition c = ff.loadFile(inputPath.c_str()); c.bad())
    return makeError(ErrorCode::ReadFailed, inputPath, std::string("cannot read as DICOM: ") + c.text());
  DcmDataset* ds = ff.getDataset();
  OFString burned, sopClass;
  ds->findAndGetOFString(DCM_BurnedInAnnotation, burned);
  ds->findAndGetOFString(DCM_SOPClassUID, sopClass);
  if (burned == "YES")
    return makeError(ErrorCode::Unsupported, inputPath,
                     "Burned In Annotation is YES: its pixels may show who the patient is, which de-identification "
                     "cannot remove; not imported");
  if (picturesOfText(sopClass.c_str()) && burned != "NO")
    return makeError(ErrorCode::Unsupported, inputPath,
                     "a secondary capture or encapsulated document (" + std::string(sopClass.c_str()) +
                         ") without Burned In Annotation NO: its pixels may show names; not imported");
  // The patient ID as the series index reads it (every value, blanks trimmed), so the files and the manifest get the
  // same pseudonym and date shift.
  OFString idValue;
  ds->findAndGetOFStringArray(DCM_PatientID, idValue);
  std::string patientId = idValue.c_str();
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\0'; };
  while (!patientId.empty() && blank(patientId.back())) patientId.pop_back();
  while (!patientId.empty() && blank(patientId.front())) patientId.erase(patientId.begin());
  Deidentifier d(key, patientId);
  if (OFCondition c = d.clean(ds, true); c.bad())
    return makeError(ErrorCode::ReadFailed, inputPath, std::string("cannot de-identify: ") + c.text());
  const std::string pseudonym = pseudonymFor(key, patientId);
  // The meta header: who sent the file goes; its SOP Instance UID follows the dataset's (below, on writing).
  for (const DcmTagKey& k : kRemoveMeta) ff.getMetaInfo()->findAndDeleteElement(k);
  ds->putAndInsertString(DCM_PatientID, pseudonym.c_str());
  ds->putAndInsertString(DCM_PatientName, pseudonym.c_str());
  ds->putAndInsertString(DCM_PatientIdentityRemoved, "YES");
  ds->putAndInsertString(DCM_LongitudinalTemporalInformationModified, "MODIFIED");
  ds->putAndInsertString(DCM_DeidentificationMethod,
                         "PS3.15 Basic Application Confidentiality Profile, Retain Longitudinal Temporal Information "
                         "with Modified Dates Option (Delineate import)");
  ds->findAndDeleteElement(DCM_DeidentificationMethodCodeSequence);
  for (const auto& [value, meaning] : {std::pair{"113100", "Basic Application Confidentiality Profile"},
                                       std::pair{"113107", "Retain Longitudinal Temporal Information Modified Dates Option"}}) {
    DcmItem* code = nullptr;
    if (ds->findOrCreateSequenceItem(DCM_DeidentificationMethodCodeSequence, code, -2).good() && code) {
      code->putAndInsertString(DCM_CodeValue, value);
      code->putAndInsertString(DCM_CodingSchemeDesignator, "DCM");
      code->putAndInsertString(DCM_CodeMeaning, meaning);
    }
  }
  // The meta header follows the dataset (its SOP Instance UID is the new one); the transfer syntax stays.
  const E_TransferSyntax xfer = ds->getOriginalXfer();
  if (OFCondition c = ff.saveFile(outputPath.c_str(), xfer == EXS_Unknown ? EXS_LittleEndianExplicit : xfer,
                                  EET_ExplicitLength, EGL_recalcGL, EPD_noChange, 0, 0, EWM_updateMeta);
      c.bad())
    return makeError(ErrorCode::WriteFailed, outputPath, std::string("cannot write the de-identified file: ") + c.text());
  return core::Status::success();
}

}  // namespace delineate::io
