# The Cornell box's geometry and camera, shared by the Cornell box scenes: they define the
# materials (floor, ceiling, backWall, leftWall, rightWall, largeBox, smallBox, light) and run
# this file in their own context:
#     exec(open(Path(__file__).with_name('CornellBoxGeometry.py')).read())

# Geometry
quadMesh = TriangleMesh.createQuad()
cubeMesh = TriangleMesh.createCube()
wallScale = float3(0.55, 1.0, 0.56)

def place(name, mesh, material, **transform):
    nodeID = sceneBuilder.addNode(name, Transform(**transform))
    sceneBuilder.addMeshInstance(nodeID, sceneBuilder.addTriangleMesh(mesh, material))

place('Floor', quadMesh, floor, scaling=wallScale)
place('Ceiling', quadMesh, ceiling, scaling=wallScale, translation=float3(0, 0.55, 0), rotationEulerDeg=float3(180, 0, 0))
place('Back Wall', quadMesh, backWall, scaling=wallScale, translation=float3(0, 0.275, -0.275), rotationEulerDeg=float3(90, 0, 0))
place('Left Wall', quadMesh, leftWall, scaling=wallScale, translation=float3(-0.275, 0.275, 0), rotationEulerDeg=float3(0, 0, -90))
place('Right Wall', quadMesh, rightWall, scaling=wallScale, translation=float3(0.275, 0.275, 0), rotationEulerDeg=float3(0, 0, 90))
place('Large Box', cubeMesh, largeBox, scaling=float3(0.165, 0.33, 0.165), translation=float3(-0.093, 0.165, -0.071),
      rotationEuler=float3(0, -1.27, 0))
place('Small Box', cubeMesh, smallBox, scaling=float3(0.165, 0.165, 0.165), translation=float3(0.09, 0.0825, 0.111),
      rotationEuler=float3(0, -0.29, 0))
place('Light', quadMesh, light, scaling=0.13, translation=float3(0, 0.549, 0), rotationEulerDeg=float3(180, 0, 0))

# Camera
camera = Camera()
camera.position = float3(0, 0.28, 1.2)
camera.target = float3(0, 0.28, 0)
camera.up = float3(0, 1, 0)
camera.focalLength = 35.0
sceneBuilder.addCamera(camera)
