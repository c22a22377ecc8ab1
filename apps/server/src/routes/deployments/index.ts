import createDeployment from "./create-deployment.ts";
import getDeployment from "./get-deployment.ts";
import listDeployments from "./list-deployments.ts";

/** The Deployments operations, in spec order. */
export const deploymentRoutes = [getDeployment, listDeployments, createDeployment];
