# Falcor's PathTracerNRD render script: one path-traced sample per pixel, denoised by NRD (diffuse
# and specular, delta reflection and delta transmission, with their motion-vector passes), the
# illumination remodulated and upscaled by DLSSPass, beside an accumulated reference.
#   mogwai --script Scripts/PathTracerNRD.py [--scene ...]
# NRD and DLSSPass are our CPU replacements of the vendor passes (docs/compatibility.md): NRD
# needs the `denoise` extra (pip install "falcor[denoise]"). Renders 16 frames of the Cornell box
# (or --scene) and captures captures/PathTracerNRD.ToneMapperNRD.dst.16.png and
# PathTracerNRD.ToneMapperReference.dst.16.png in the working folder.
from falcor import *

# NRD pass -> [(source output, NRD input field)].
NRD_INPUTS = {
    "NRDDiffuseSpecular": [("PathTracer.nrdDiffuseRadianceHitDist", "diffuseRadianceHitDist"),
                           ("PathTracer.nrdSpecularRadianceHitDist", "specularRadianceHitDist"), ("GBufferRT.mvecW", "mvec"),
                           ("GBufferRT.normWRoughnessMaterialID", "normWRoughnessMaterialID"), ("GBufferRT.linearZ", "viewZ")],
    "NRDReflectionMotionVectors": [("PathTracer.nrdDeltaReflectionHitDist", "specularHitDist"), ("GBufferRT.linearZ", "viewZ"),
                                   ("GBufferRT.normWRoughnessMaterialID", "normWRoughnessMaterialID"), ("GBufferRT.mvec", "mvec")],
    "NRDDeltaReflection": [("PathTracer.nrdDeltaReflectionRadianceHitDist", "diffuseRadianceHitDist"),
                           ("NRDReflectionMotionVectors.reflectionMvec", "mvec"),
                           ("PathTracer.nrdDeltaReflectionNormWRoughMaterialID", "normWRoughnessMaterialID"),
                           ("PathTracer.nrdDeltaReflectionPathLength", "viewZ")],
    "NRDTransmissionMotionVectors": [("GBufferRT.posW", "deltaPrimaryPosW"), ("PathTracer.nrdDeltaTransmissionPosW", "deltaSecondaryPosW"),
                                     ("GBufferRT.mvec", "mvec")],
    "NRDDeltaTransmission": [("PathTracer.nrdDeltaTransmissionRadianceHitDist", "diffuseRadianceHitDist"),
                             ("NRDTransmissionMotionVectors.deltaMvec", "mvec"),
                             ("PathTracer.nrdDeltaTransmissionNormWRoughMaterialID", "normWRoughnessMaterialID"),
                             ("PathTracer.nrdDeltaTransmissionPathLength", "viewZ")],
}
# ModulateIllumination input field <- source output.
MODULATE_INPUTS = [("emission", "PathTracer.nrdEmission"), ("diffuseReflectance", "PathTracer.nrdDiffuseReflectance"),
                   ("diffuseRadiance", "NRDDiffuseSpecular.filteredDiffuseRadianceHitDist"),
                   ("specularReflectance", "PathTracer.nrdSpecularReflectance"),
                   ("specularRadiance", "NRDDiffuseSpecular.filteredSpecularRadianceHitDist"),
                   ("deltaReflectionEmission", "PathTracer.nrdDeltaReflectionEmission"),
                   ("deltaReflectionReflectance", "PathTracer.nrdDeltaReflectionReflectance"),
                   ("deltaReflectionRadiance", "NRDDeltaReflection.filteredDiffuseRadianceHitDist"),
                   ("deltaTransmissionEmission", "PathTracer.nrdDeltaTransmissionEmission"),
                   ("deltaTransmissionReflectance", "PathTracer.nrdDeltaTransmissionReflectance"),
                   ("deltaTransmissionRadiance", "NRDDeltaTransmission.filteredDiffuseRadianceHitDist"),
                   ("residualRadiance", "PathTracer.nrdResidualRadianceHitDist")]


def render_graph_PathTracerNRD():
    g = RenderGraph("PathTracerNRD")
    delta_nrd = {"method": "RelaxDiffuse", "maxIntensity": 250.0, "worldSpaceMotion": False,
                 "enableReprojectionTestSkippingWithoutMotion": True}
    passes = {
        "GBufferRT": ("GBufferRT", {"samplePattern": "Halton", "sampleCount": 32, "useAlphaTest": True}),
        "PathTracer": ("PathTracer", {"samplesPerPixel": 1, "maxSurfaceBounces": 10, "useRussianRoulette": True}),
        "NRDDiffuseSpecular": ("NRD", {"maxIntensity": 250.0}),
        "NRDDeltaReflection": ("NRD", {**delta_nrd, "spatialVarianceEstimationHistoryThreshold": 1}),
        "NRDDeltaTransmission": ("NRD", delta_nrd),
        "NRDReflectionMotionVectors": ("NRD", {"method": "SpecularReflectionMv", "worldSpaceMotion": False}),
        "NRDTransmissionMotionVectors": ("NRD", {"method": "SpecularDeltaMv", "worldSpaceMotion": False}),
        "ModulateIllumination": ("ModulateIllumination", {"useResidualRadiance": False}),
        "DLSS": ("DLSSPass", {"enabled": True, "profile": "Balanced", "motionVectorScale": "Relative", "isHDR": True,
                              "sharpness": 0.0, "exposure": 0.0}),
        "ToneMapperNRD": ("ToneMapper", {"autoExposure": False, "exposureCompensation": 0.0}),
        "AccumulatePass": ("AccumulatePass", {"enabled": True, "precisionMode": "Single"}),
        "ToneMapperReference": ("ToneMapper", {"autoExposure": False, "exposureCompensation": 0.0}),
    }
    for name, (pass_type, props) in passes.items():
        g.addPass(createPass(pass_type, props), name)
    g.addEdge("GBufferRT.vbuffer", "PathTracer.vbuffer")
    g.addEdge("GBufferRT.viewW", "PathTracer.viewW")
    for nrd, inputs in NRD_INPUTS.items():
        for src, field in inputs:
            g.addEdge(src, f"{nrd}.{field}")
    for field, src in MODULATE_INPUTS:
        g.addEdge(src, f"ModulateIllumination.{field}")
    for src, dst in [("PathTracer.color", "AccumulatePass.input"), ("AccumulatePass.output", "ToneMapperReference.src"),
                     ("GBufferRT.mvec", "DLSS.mvec"), ("GBufferRT.linearZ", "DLSS.depth"), ("ModulateIllumination.output", "DLSS.color"),
                     ("DLSS.output", "ToneMapperNRD.src")]:
        g.addEdge(src, dst)
    g.markOutput("ToneMapperNRD.dst")
    g.markOutput("ToneMapperReference.dst")
    return g


PathTracerNRD = render_graph_PathTracerNRD()
try:
    m.addGraph(PathTracerNRD)
except NameError:
    None

if __name__ == "__main__" and "m" in globals():  # run by Mogwai (not loaded for its graph)
    frames = 16
    if m.scene is None:
        m.loadScene("../Scenes/CornellBox.pyscene")
    m.frameCapture.outputDir = "captures"
    m.frameCapture.baseFilename = "PathTracerNRD"
    m.clock.time = 0
    m.clock.pause()
    for frame in range(frames):
        m.clock.frame = frame + 1
        m.renderFrame()
    m.frameCapture.capture()
    exit()
